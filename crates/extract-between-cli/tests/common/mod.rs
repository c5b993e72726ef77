//! Shared helpers of the binary's tests: a server process on a real socket and an HTTP/1.1
//! client small enough to send what real clients would not.
#![allow(dead_code)]

pub mod http;
