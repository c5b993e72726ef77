//! The npm package (`js/`), built and tested as a user meets it: `bash js/build.sh` (the
//! crate for wasm32 and wasm-bindgen's module; it adds the target and installs the CLI at the
//! crate's version when they are missing), `npm install` of its test tools (fast-check,
//! TypeScript, playwright-core), then `node --test js/test/*.test.mjs`: the card, properties against
//! the card's reference loop in JavaScript, streams cut everywhere, 1 GB in bounded memory,
//! the types under `tsc --strict`, the documentation's examples, and the playground page in
//! headless Chromium, served by this crate's binary.
//!
//! Where Node, npm or rustup is missing the test is skipped, unless `EXTRACT_BETWEEN_REQUIRE_JS`
//! is set (`.ci/run` sets it, and `EXTRACT_BETWEEN_REQUIRE_BROWSER` for Chromium), which makes
//! that a failure.

mod common;

use std::path::Path;
use std::process::Command;

const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn run(what: &str, command: &mut Command) -> String {
    let out = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn the_npm_package_passes_its_node_test_suite() {
    for (tool, probe) in [
        ("node", "--version"),
        ("npm", "--version"),
        ("rustup", "--version"),
    ] {
        if !common::process::tool_available(
            Command::new(tool).arg(probe),
            "EXTRACT_BETWEEN_REQUIRE_JS",
            &format!("{tool}, to build and test the npm package"),
            "install Node.js 20 or newer (with npm) and rustup",
        ) {
            return;
        }
    }
    let js = Path::new(WORKSPACE).join("js");
    run(
        "bash js/build.sh",
        Command::new("bash").arg(js.join("build.sh")),
    );
    run(
        "npm install (the package's test tools)",
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--no-package-lock"])
            .current_dir(&js),
    );
    // The test files by name: Node would run every file under test/ (its helpers too).
    let mut files: Vec<String> = std::fs::read_dir(js.join("test"))
        .expect("js/test is there")
        .filter_map(Result::ok)
        .map(|e| format!("test/{}", e.file_name().to_string_lossy()))
        .filter(|name| name.ends_with(".test.mjs"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "only {files:?} in js/test");
    let out = run(
        "node --test js/test/*.test.mjs",
        Command::new("node")
            .args(["--test", "--test-reporter=spec"])
            .args(&files)
            .current_dir(&js)
            .env("EXTRACT_BETWEEN_BIN", env!("CARGO_BIN_EXE_extract-between")),
    );
    // Each test node skipped, reported as the Rust suite's skips are.
    for line in out.lines().filter(|l| l.contains("# SKIP")) {
        common::process::report_skip(&format!("node --test: {}", line.trim()));
    }
    eprintln!(
        "node --test: {}",
        out.lines().rev().find(|l| l.contains("pass")).unwrap_or("")
    );
}
