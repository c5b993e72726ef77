//! What a test may ask of a running process, and how these helpers wait: by polling for the
//! state a test needs under a deadline, not by sleeping a fixed time.
#![allow(dead_code)]

use std::time::{Duration, Instant};

/// Calls `check` until it gives `Some`, every few milliseconds, for at most `deadline`;
/// `None` when the deadline passed first.
pub fn poll_until<T>(deadline: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let until = Instant::now() + deadline;
    loop {
        if let Some(found) = check() {
            return Some(found);
        }
        if Instant::now() >= until {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether `check` holds within `deadline`, asked every few milliseconds.
pub fn eventually(deadline: Duration, mut check: impl FnMut() -> bool) -> bool {
    poll_until(deadline, || check().then_some(())).is_some()
}

/// A `/proc/PID/status` field in KiB (`VmHWM`, `VmRSS`), or `None` once the process is gone.
pub fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

/// The names of the process's threads (`comm` of each task).
/// How many descriptors process `pid` holds open (0 if it is gone).
pub fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count)
}

pub fn thread_names(pid: u32) -> Vec<String> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|name| name.trim_end().to_owned())
        .collect()
}

/// Whether the process's main thread is blocked in `read(2)` on file descriptor `fd`.
pub fn blocked_reading(pid: u32, fd: u32) -> bool {
    // `/proc/PID/syscall`: the syscall number, then its arguments in hex; read is 0 on
    // x86-64 and 63 on aarch64.
    let read = if cfg!(target_arch = "aarch64") {
        "63"
    } else {
        "0"
    };
    std::fs::read_to_string(format!("/proc/{pid}/syscall")).is_ok_and(|s| {
        let mut fields = s.split_whitespace();
        fields.next() == Some(read) && fields.next() == Some(format!("{fd:#x}").as_str())
    })
}

/// Whether a tool a test drives is here (`probe` runs it and exits 0). Absent, the test is
/// skipped and says so (see [`skipped`]), unless the variable `require` is set (CI sets
/// it), which makes the absence a failure that says how to install it.
pub fn tool_available(
    probe: &mut std::process::Command,
    require: &str,
    what: &str,
    install: &str,
) -> bool {
    let found = probe
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        found || std::env::var_os(require).is_none(),
        "{what} is not available and {require} is set ({install})"
    );
    if !found {
        skipped(what, install);
    }
    found
}

/// Reports that the running test did not run for want of `what`: a line on the terminal
/// that the test harness does not capture (a passing test's output is hidden), and a line
/// in `skipped-tests.txt` of the target's tmp folder (or `EXTRACT_BETWEEN_SKIPPED_LIST`),
/// which `.ci/run` prints at the end.
pub fn skipped(what: &str, install: &str) {
    report_skip(&format!("{what} is not available (to run it: {install})"));
}

/// Reports that part of the running test did not run, and `why`, as [`skipped`] does.
pub fn report_skip(why: &str) {
    use std::io::Write;
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    let line = format!("SKIPPED {test}: {why}\n");
    // `eprintln!` would be captured with the test's output; a write to the handle is not.
    let _ = std::io::stderr().write_all(line.as_bytes());
    let list = std::env::var_os("EXTRACT_BETWEEN_SKIPPED_LIST").map_or_else(
        || std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("skipped-tests.txt"),
        std::path::PathBuf::from,
    );
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(list)
    {
        let _ = file.write_all(line.as_bytes());
    }
}
