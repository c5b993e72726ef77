//! The MCP server driven by a real client: the official Python SDK (`mcp` 2.3.0), in
//! legacy mode and in 2026-07-28 mode, over stdio and over HTTP (`tests/mcp/sdk_client.py`
//! holds the checks).
//!
//! The interpreter is `EXTRACT_BETWEEN_MCP_PYTHON` (default `python3`); `.ci/run` installs
//! the SDK into a venv and sets `EXTRACT_BETWEEN_REQUIRE_MCP_SDK=1`, which makes a missing
//! SDK a failure instead of a skip.

use crate::common::http::Server;
use std::process::Command;

fn python() -> Option<String> {
    let python = std::env::var("EXTRACT_BETWEEN_MCP_PYTHON").unwrap_or_else(|_| "python3".into());
    let found = crate::common::process::tool_available(
        Command::new(&python).args([
            "-c",
            "import mcp, importlib.metadata as m; assert m.version('mcp') == '2.3.0'",
        ]),
        "EXTRACT_BETWEEN_REQUIRE_MCP_SDK",
        &format!("the MCP Python SDK 2.3.0 (in {python})"),
        "pip install mcp==2.3.0, or point EXTRACT_BETWEEN_MCP_PYTHON at a Python that has it",
    );
    found.then_some(python)
}

fn run_client(python: &str, transport: &str, target: &str, mode: &str) {
    let out = Command::new(python)
        .args([
            "-W",
            "ignore",
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/sdk_client.py"),
        ])
        .args([transport, target, mode])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.starts_with("ok "),
        "{transport} {mode}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{}", stdout.trim());
}

#[test]
fn the_python_sdk_over_stdio_in_both_eras() {
    let Some(python) = python() else {
        return;
    };
    for mode in ["legacy", "2026-07-28"] {
        run_client(
            &python,
            "stdio",
            env!("CARGO_BIN_EXE_extract-between"),
            mode,
        );
    }
}

#[test]
fn the_python_sdk_over_http_in_both_eras() {
    let Some(python) = python() else {
        return;
    };
    let server = Server::start(&[]);
    let url = format!("http://{}/mcp", server.addr);
    for mode in ["legacy", "2026-07-28", "auto"] {
        run_client(&python, "http", &url, mode);
    }
}
