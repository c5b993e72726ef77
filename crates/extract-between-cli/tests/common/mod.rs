//! Shared helpers of the binary's tests: a server process on a real socket, an HTTP/1.1
//! client small enough to send what real clients would not, and what a test may ask of a
//! process (its threads, memory, whether it waits) by polling.
#![allow(dead_code)]

pub mod cli;
pub mod http;
pub mod process;
pub mod scratch;
