//! The Model Context Protocol server: the card's tool for agents, over
//! stdio (`extract-between mcp`) and Streamable HTTP (`/mcp` on `extract-between serve`),
//! in both protocol eras (2026-07-28 per-request metadata; 2025-11-25 and earlier with the
//! `initialize` handshake).
//!
//! JSON-RPC framing is read without trusting it, the answer to each request is decided in
//! one place (the tool call goes through [`extract_between::request`], the card's JSON
//! contract), and the two transports (stdio lines, Streamable HTTP's checks) only carry
//! messages. A small layer on serde_json: one tool and no server-to-client requests take a
//! few hundred lines.

mod dispatch;
pub(crate) mod http;
mod rpc;
mod stdio;

pub use dispatch::{LEGACY_VERSIONS, MODERN_VERSIONS, tool_definition};
pub use rpc::code;
pub use stdio::{MAX_MESSAGE_BYTES, serve_stdio};
