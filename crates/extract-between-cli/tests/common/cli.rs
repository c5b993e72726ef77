//! Driving the built binary as a user would: its path, a run with standard input, temporary
//! files.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_extract-between");

/// Runs the binary with `args`, `stdin` written to it, and waits for it.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Bytes as text, for messages and comparisons.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The binary with piped standard input and output, for tests that feed it as they go.
pub fn spawn_piped(args: &[&str]) -> std::process::Child {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A file of `contents` in the running test's own folder (parents made).
pub fn temp(name: &str, contents: &[u8]) -> PathBuf {
    let path = super::scratch::path(name);
    std::fs::write(&path, contents).unwrap();
    path
}
