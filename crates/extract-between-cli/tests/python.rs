//! The Python package, built and tested as a user installs it: `pip install ./python` into a
//! venv, then its pytest suite (the card through Python, properties against a UTF-16
//! reference, every kind of source, a 1 GiB file with its peak memory, `run_json` against
//! this crate's binary in tool mode, Arrow columns from pyarrow, polars, pandas and DuckDB,
//! the docstrings' examples), the DuckDB extension's tests beside it (`duckdb/test`: its SQL
//! tests and its other clients), the Spark jar's and wrappers' (`spark/tests`, a real local
//! Spark), and `mypy.stubtest` of the native module's stubs. The Spark tests need Java;
//! `EXTRACT_BETWEEN_REQUIRE_SPARK` makes its absence a failure.
//!
//! The interpreter is `EXTRACT_BETWEEN_PYTHON` (default `python3`); where it cannot make a
//! venv the test is skipped, unless `EXTRACT_BETWEEN_REQUIRE_PYTHON` is set (`.ci/run` sets
//! it), which makes that a failure. The venv lives in cargo's target directory and is reused.
//!
//! A second test runs the polars plugin's tests on the oldest polars declared (1.20), from the
//! built wheel.
//!
//! With `EXTRACT_BETWEEN_PYTHON_WHEEL` naming a built wheel (`scripts/dist.sh`'s, as `.ci/run`
//! does), that wheel is what is installed and tested, with no `cargo` or `rustc` on the
//! `PATH`: the package as a user gets it from an index.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// Held by each test for its whole run: the two must not share the machine's cores, or the
/// suite's timing tests (a Ctrl-C answered within a fifth of a second) run starved.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// pytest as both tests run it: the installed package's docstrings too, each skip listed.
const PYTEST: [&str; 8] = [
    "-m",
    "pytest",
    "-q",
    "-p",
    "no:cacheprovider",
    "--doctest-modules",
    "--import-mode=importlib",
    "-rs",
];

fn run(what: &str, command: &mut Command) {
    let out = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{what}: {}", stdout.lines().last().unwrap_or(""));
    // pytest's `-rs` lines: each Python test that did not run, and why (the examples marked
    // `+SKIP` in docstrings are not meant to run).
    for line in stdout
        .lines()
        .filter(|l| l.starts_with("SKIPPED ") && !l.contains("+SKIP option"))
    {
        let why = line.split_once("] ").map_or(line, |(_, rest)| rest);
        common::process::report_skip(&format!("pytest: {why}"));
    }
}

/// The venv's interpreter, made (once) with the package's test tools; `None` where the
/// interpreter cannot make a venv.
fn venv() -> Option<PathBuf> {
    let python = std::env::var("EXTRACT_BETWEEN_PYTHON").unwrap_or_else(|_| "python3".into());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-venv");
    let bin = dir.join("bin/python");
    let made = bin.exists()
        || common::process::tool_available(
            Command::new(&python).args(["-m", "venv"]).arg(&dir),
            "EXTRACT_BETWEEN_REQUIRE_PYTHON",
            &format!("a Python 3.10 or newer that makes a venv ({python})"),
            "apt-get install python3-venv, or set EXTRACT_BETWEEN_PYTHON",
        );
    if !made {
        return None;
    }
    Some(bin)
}

/// `PATH` with the venv's `bin` first, as `activate` sets it; `without_rust` leaves out every
/// folder holding `cargo` or `rustc`.
fn activated_path(python: &Path, without_rust: bool) -> std::ffi::OsString {
    let bin = python.parent().map(Path::to_path_buf).unwrap_or_default();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let kept = std::env::split_paths(&rest)
        .filter(|dir| !without_rust || !(dir.join("cargo").exists() || dir.join("rustc").exists()));
    std::env::join_paths(std::iter::once(bin).chain(kept)).unwrap_or(rest)
}

/// `pip install` of `spec` (the wheel, with extras) and `with`, then of the wheel `file` alone
/// again: the venv is reused, and a build of the same version installed before is replaced.
fn install_wheel(python: &Path, spec: &str, with: &[&str], file: &str, path: &std::ffi::OsStr) {
    run(
        &format!("pip install {spec} {}", with.join(" ")),
        Command::new(python)
            .args(["-m", "pip", "install", "-q", spec])
            .args(with)
            .env("PATH", path)
            .current_dir(WORKSPACE),
    );
    run(
        "pip install --force-reinstall --no-deps (the wheel)",
        Command::new(python)
            .args([
                "-m",
                "pip",
                "install",
                "-q",
                "--force-reinstall",
                "--no-deps",
                file,
            ])
            .env("PATH", path)
            .current_dir(WORKSPACE),
    );
}

/// Builds the DuckDB extension (`duckdb/build.sh`, the release profile) and copies its files
/// into `python/python/extract_between/extensions/<platform>/`, where a build from the source
/// tree packs them as the wheel does.
fn duckdb_extension() {
    let out = Command::new("bash")
        .arg("duckdb/build.sh")
        .env("PROFILE", "release")
        .current_dir(WORKSPACE)
        .output()
        .unwrap_or_else(|e| panic!("bash duckdb/build.sh: {e}"));
    assert!(
        out.status.success(),
        "bash duckdb/build.sh failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let extensions = Path::new(WORKSPACE).join("python/python/extract_between/extensions");
    for file in String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.ends_with(".duckdb_extension"))
    {
        let file = Path::new(file);
        let platform = file.parent().and_then(Path::file_name).unwrap();
        let dir = extensions.join(platform);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(file, dir.join("extract_between.duckdb_extension")).unwrap();
    }
}

#[test]
fn the_python_package_installs_and_its_suite_passes() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(python) = venv() else {
        return;
    };
    let package = Path::new(WORKSPACE).join("python");
    let wheel = std::env::var("EXTRACT_BETWEEN_PYTHON_WHEEL").ok();
    let path = activated_path(&python, wheel.is_some());
    // As a user runs it in an activated venv: the build backend comes from PyPI; the extras
    // bring the test tools, the column engines (pyarrow, polars, pandas, DuckDB) and pyspark.
    match &wheel {
        None => {
            // The DuckDB extension into the package's source first, as the wheel carries it
            // (the Spark jar needs a JDK and is left out: its tests skip without it).
            duckdb_extension();
            run(
                "pip install ./python[test,spark]",
                Command::new(&python)
                    .args(["-m", "pip", "install", "-q", "./python[test,spark]"])
                    .env("PATH", &path)
                    .current_dir(WORKSPACE),
            )
        }
        Some(wheel) => {
            install_wheel(&python, &format!("{wheel}[test,spark]"), &[], wheel, &path);
            run(
                "no Rust on the PATH",
                Command::new(&python)
                    .args([
                        "-c",
                        "import shutil; assert shutil.which('cargo') is None and shutil.which('rustc') is None",
                    ])
                    .env("PATH", &path),
            );
        }
    }
    // From a directory without the source tree, so the installed package is what runs.
    let outside = Path::new(env!("CARGO_TARGET_TMPDIR"));
    run(
        "the package's one-line example",
        Command::new(&python)
            .args([
                "-c",
                "import extract_between as eb; print(eb.extract('pre[one]mid[two]post','[',']'))",
            ])
            .current_dir(outside),
    );
    // Each suite where it lives: the package's, the DuckDB extension's (its SQL tests and
    // other clients) and the Spark jar's, in one session (one JVM for the Spark tests).
    let workspace = Path::new(WORKSPACE);
    run(
        "pytest",
        Command::new(&python)
            .args(PYTEST)
            .arg(package.join("tests"))
            .arg(workspace.join("duckdb/test"))
            .arg(workspace.join("spark/tests"))
            .args(["--pyargs", "extract_between"])
            .env("EXTRACT_BETWEEN_BIN", env!("CARGO_BIN_EXE_extract-between"))
            .env("PATH", &path)
            .current_dir(outside),
    );
    run(
        "mypy.stubtest",
        Command::new(&python)
            .args(["-m", "mypy.stubtest", "extract_between._native"])
            .current_dir(outside),
    );
}

/// The polars namespace (a plugin) on the oldest polars the package declares, 1.20, as the
/// main suite runs it on the newest: the built wheel (`EXTRACT_BETWEEN_PYTHON_WHEEL`) in a
/// venv of its own with that polars, and the plugin's tests. Without a built wheel the test
/// says it did not run (building the package a second time is what CI's wheel saves).
#[test]
fn the_polars_namespace_runs_on_the_oldest_polars_declared() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(wheel) = std::env::var("EXTRACT_BETWEEN_PYTHON_WHEEL").ok() else {
        common::process::report_skip(
            "no built wheel to install beside polars 1.20 (set EXTRACT_BETWEEN_PYTHON_WHEEL, as .ci/run does)",
        );
        return;
    };
    let python = std::env::var("EXTRACT_BETWEEN_PYTHON").unwrap_or_else(|_| "python3".into());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-venv-polars-1.20");
    let venv_python = dir.join("bin/python");
    if !venv_python.exists() {
        run(
            "python3 -m venv (polars 1.20)",
            Command::new(&python).args(["-m", "venv"]).arg(&dir),
        );
    }
    let path = activated_path(&venv_python, true);
    let with = ["polars==1.20.0", "pyarrow", "pytest", "hypothesis"];
    install_wheel(&venv_python, &wheel, &with, &wheel, &path);
    let outside = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let tests = Path::new(WORKSPACE).join("python/tests");
    run(
        "pytest with polars 1.20",
        Command::new(&venv_python)
            .args(PYTEST)
            .arg(tests.join("test_polars_plugin.py"))
            .args(["--pyargs", "extract_between.polars"])
            .env("PATH", &path)
            .current_dir(outside),
    );
}
