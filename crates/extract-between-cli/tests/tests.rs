//! The binary's integration tests, one test binary (ripgrep's layout): each module below is
//! one concern and drives the built binary from outside, as a user would. Two binaries stand
//! apart, both left out of the published crate because they test what lives beside it in the
//! workspace: `tests/deploy.rs` (the container and Kubernetes files) and `tests/python.rs` (the
//! Python package's suite, which also runs alone because its timing tests need the machine).

mod common;

mod auth;
mod cli;
mod cli_conventions;
mod cli_descriptors;
mod cli_memory;
mod cli_tags;
mod cli_tree;
mod cors;
mod error_schema;
mod haproxy;
mod hardening;
mod hardening_h2;
mod hardening_limits;
mod mcp;
mod mcp_rmcp;
mod mcp_sdk;
mod operations;
mod server;
mod stream_route;
