//! Standard input and output as the CLI must treat them: a closed descriptor is an error,
//! not an empty input or a sink that swallows everything (Rust's standard streams ignore
//! `EBADF`, so `>&-` would exit 0 having written nothing, and `<&-` would read as empty).
//! A reader that went away (`| head`) is not an error, as for grep.

use std::io::{self, Write};
use std::process::ExitCode;

/// Whether descriptor 1 was open when the process started.
pub(super) fn stdout_open() -> io::Result<()> {
    was_open(1, "standard output")
}

/// Whether descriptor 0 was open when the process started; checked before it is read.
pub(super) fn stdin_open() -> io::Result<()> {
    was_open(0, "standard input")
}

/// Rust's runtime reopens a closed descriptor 0, 1 or 2 on `/dev/null` before `main`, read
/// and write (`O_RDWR`), so that a closed descriptor is never reused by a file. A shell's
/// `</dev/null` or `>/dev/null` opens it one way only: `/dev/null` open both ways is the
/// runtime's stand-in for a descriptor that was closed.
fn was_open(fd: u8, name: &str) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let is_null = std::fs::read_link(format!("/proc/self/fd/{fd}"))
            .is_ok_and(|target| target.as_os_str() == "/dev/null");
        let both_ways = || {
            let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{fd}"))?;
            let flags = info
                .lines()
                .find_map(|l| l.strip_prefix("flags:"))
                .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
                .unwrap_or(0);
            // O_ACCMODE and O_RDWR.
            io::Result::Ok(flags & 0o3 == 0o2)
        };
        if is_null && both_ways().unwrap_or(false) {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                format!("descriptor {fd} ({name}) is closed"),
            ));
        }
    }
    let _ = (fd, name);
    Ok(())
}

/// Ends a run whose arguments clap did not accept, or that asked for `--help` or
/// `--version`: clap's text, and exit 2 when it could not be written.
pub(super) fn clap_exit(e: &clap::Error) -> ExitCode {
    let printed = e.print();
    if e.use_stderr() {
        return ExitCode::from(2);
    }
    match printed.and_then(|()| io::stdout().flush()) {
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe => {
            eprintln!("extract-between: writing output: {err}");
            ExitCode::from(2)
        }
        _ => ExitCode::SUCCESS,
    }
}

/// Writes `bytes` to standard output and flushes it. Any failure but a reader that went
/// away (a full disk) is said once, and the caller exits 2 instead of 0 with nothing
/// written.
pub(super) fn write_stdout(bytes: &[u8]) -> Result<(), ()> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            eprintln!("extract-between: writing output: {e}");
            Err(())
        }
        _ => Ok(()),
    }
}
