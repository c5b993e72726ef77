//! The library's integration tests, one binary: each module is one concern.

mod common;

/// The async adapters on a real tokio runtime.
#[cfg(feature = "codec")]
mod adapters;
/// The card's JSON contract.
#[cfg(feature = "json")]
mod contract;
/// The events stream against the vectors every binding shares.
#[cfg(feature = "stream")]
mod events;
/// Fast paths against the UTF-16 reference under any chunking.
mod props;
/// The row API against the vectors every host shares.
mod rows;
/// One test per sentence of the card's semantics.
mod semantics;
/// Tag sets against their naive reference.
#[cfg(feature = "tags")]
mod tags;
