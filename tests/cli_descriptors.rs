//! The CLI with standard input or output closed (`<&-`, `>&-`) or failing (`/dev/full`):
//! an error on stderr and exit 2 in every mode, never a silent success or "no match".

use std::process::Command;

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
fn a_closed_stdout_is_an_error_in_every_mode() {
    for args in [
        "-s [ -e ]",
        "--json-lines -s [ -e ]",
        "-c -s [ -e ]",
        "-0 -s [ -e ]",
        "tool",
        "card",
        "--help",
        "--version",
    ] {
        let (code, stderr) = run(args, ">&-");
        assert_eq!(code, 2, "{args}: {stderr}");
        assert!(stderr.contains("standard output"), "{args}: {stderr}");
    }
}

#[test]
fn a_closed_stdin_is_an_error_where_it_is_read() {
    for args in ["-s [ -e ]", "-s [ -e ] -", "tool", "tool -"] {
        let (code, stderr) = run(args, "<&-");
        assert_eq!(code, 2, "{args}: {stderr}");
        assert!(stderr.contains("standard input"), "{args}: {stderr}");
    }
    // Not read, not needed: a named file is searched as usual.
    let (code, stderr) = run("-q -s [ -e ] Cargo.toml", "<&-");
    assert_ne!(code, 2, "{stderr}");
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
fn dev_null_is_not_mistaken_for_a_closed_descriptor() {
    assert_eq!(run("-s [ -e ]", ">/dev/null").0, 0);
    assert_eq!(run("-s [ -e ] -", "</dev/null").0, 1);
}
