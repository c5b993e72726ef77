//! The Model Context Protocol server: the card's tool for agents, over
//! stdio (`extract-between mcp`) and Streamable HTTP (`/mcp` on `extract-between serve`),
//! in both protocol eras (2026-07-28 per-request metadata; 2025-11-25 and earlier with the
//! `initialize` handshake).
//!
//! `rpc` reads and writes JSON-RPC, `dispatch` decides what each request is answered (the
//! tool call goes through [`extract_between::request`], the card's JSON contract), `stdio` is the
//! line transport, `http` the Streamable HTTP binding's checks. A small layer on
//! serde_json: one tool and no server-to-client requests take a few hundred lines, and it
//! adds no crate to the dependency tree.

mod dispatch;
pub(crate) mod http;
mod rpc;
mod stdio;

pub use dispatch::{LEGACY_VERSIONS, MODERN_VERSIONS, tool_definition};
pub use rpc::code;
pub use stdio::{MAX_MESSAGE_BYTES, serve_stdio};
