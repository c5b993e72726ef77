//! The CLI's standard output when it fails (`/dev/full`): an error on stderr and exit 2 in
//! every mode, `--help` and `--version` included, never a silent success. And the null
//! device, however the parent opened it, is an ordinary place to write to.

use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_extract-between");

/// Runs `BIN args` under `sh` with `redirect` applied; returns the exit code and stderr.
fn run(args: &str, redirect: &str) -> (i32, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("printf '[a]' | \"{BIN}\" {args} {redirect}"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_failing_stdout_is_an_error_for_help_and_version_too() {
    for args in ["--help", "--version", "card", "-s [ -e ]", "tool"] {
        let (code, stderr) = run(args, ">/dev/full");
        assert_eq!(code, 2, "{args}: {stderr}");
        assert!(stderr.contains("writing output"), "{args}: {stderr}");
    }
}

#[test]
fn the_null_device_is_output_like_any_other() {
    assert_eq!(run("-s [ -e ]", ">/dev/null").0, 0);
    assert_eq!(run("-s [ -e ] -", "</dev/null").0, 1);
    // Opened for reading and writing, as Python's `subprocess.DEVNULL` and Go's `os/exec`
    // open it for a child's standard streams.
    let null = || {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")
            .unwrap()
    };
    let status = Command::new(BIN)
        .args(["-s", "[", "-e", "]", "Cargo.toml"])
        .stdin(Stdio::from(null()))
        .stdout(Stdio::from(null()))
        .status()
        .unwrap();
    // `[package]` and the rest match.
    assert_eq!(status.code(), Some(0), "{status}");
}
