//! The `extract-between` application: the grep-like CLI and the card's JSON tool mode
//! ([`cli`]), the HTTP service ([`server`]) and the MCP server ([`mcp`]), each a thin layer
//! over the [`extract_between`] library, which decides every match. The binary is
//! `cli::main`; [`server::router`] and [`server::serve`] embed the service in another
//! axum or tokio program.
//!
//! ```
//! let app: axum::Router = extract_between_cli::server::router(Default::default()).unwrap();
//! # let _ = app;
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod alloc;
pub mod cli;
pub mod mcp;
pub mod server;
mod tool_card;

/// This crate's README (what crates.io shows), its Rust example run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
