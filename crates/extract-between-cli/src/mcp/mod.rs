//! The Model Context Protocol server: the card's tool for agents, over
//! stdio (`extract-between mcp`) and Streamable HTTP (`/mcp` on `extract-between serve`),
//! in both protocol eras (2026-07-28 per-request metadata; 2025-11-25 and earlier with the
//! `initialize` handshake).
//!
//! The protocol's vocabulary (the tool, the results, versions, error codes) is the official
//! Rust SDK's model, `rmcp::model`. The SDK's server runtime is not used: its Streamable
//! HTTP service answers at about half this server's rate (`benches/README.md`), and over
//! stdio it drops lines that are not JSON, answers some invalid messages without their id,
//! and turns a lone surrogate in a tool's arguments into a protocol error where the card
//! requires the tool's `invalid_input`. So the framing (bounded lines, raw ids and raw
//! arguments) and the lifecycle of both eras are this crate's, in one dispatcher that both
//! transports share.

mod dispatch;
pub(crate) mod http;
mod results;
mod rpc;
mod stdio;
mod tool;

pub use results::{LEGACY_VERSIONS, MODERN_VERSIONS};
pub use stdio::{MAX_MESSAGE_BYTES, serve_stdio};
pub use tool::tool_definition;
