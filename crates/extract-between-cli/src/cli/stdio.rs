//! Standard output as the CLI must treat it: a write that fails (a full disk) is an error,
//! for `--help` and `--version` too, while a reader that went away (`| head`) is not, as for
//! grep.
//!
//! A *closed* descriptor cannot be told apart here: Rust's runtime reopens a closed
//! descriptor 0, 1 or 2 on `/dev/null` (read and write) before `main`, and that is exactly
//! what a parent that runs us with its null device does (Python's `subprocess.DEVNULL`,
//! for one). Telling them apart needs code that runs before the runtime, which is `unsafe`.

use std::io::{self, Write};
use std::process::ExitCode;

/// How a run ends, as grep's exit status says it (tool mode uses the same numbers: output,
/// unclosed start marker, invalid input).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Exit {
    /// 0: a match (or, for other commands, success).
    Match,
    /// 1: no match.
    NoMatch,
    /// 2: an error.
    Error,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(match exit {
            Exit::Match => 0,
            Exit::NoMatch => 1,
            Exit::Error => 2,
        })
    }
}

/// Says what went wrong on stderr, as every message of the CLI is said.
pub(super) fn complain(what: impl std::fmt::Display) {
    eprintln!("extract-between: {what}");
}

/// Ends a run whose arguments clap did not accept, or that asked for `--help` or
/// `--version`: clap's text, and exit 2 when it could not be written.
pub(super) fn clap_exit(e: &clap::Error) -> ExitCode {
    let printed = e.print();
    if e.use_stderr() {
        return Exit::Error.into();
    }
    match printed.and_then(|()| io::stdout().flush()) {
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe => {
            complain(format_args!("writing output: {err}"));
            Exit::Error.into()
        }
        _ => ExitCode::SUCCESS,
    }
}

/// A failure already said on stderr: what is left to the caller is the exit status.
#[derive(Debug)]
pub(super) struct Reported;

impl From<Reported> for ExitCode {
    fn from(_: Reported) -> ExitCode {
        Exit::Error.into()
    }
}

/// Writes `bytes` to standard output and flushes it. Any failure but a reader that went
/// away (a full disk) is said once, and the caller exits 2 instead of 0 with nothing
/// written.
pub(super) fn write_stdout(bytes: &[u8]) -> Result<(), Reported> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            complain(format_args!("writing output: {e}"));
            Err(Reported)
        }
        _ => Ok(()),
    }
}
