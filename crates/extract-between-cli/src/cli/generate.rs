//! What packagers install beside the binary, made from the same clap definitions as the
//! parser so they cannot drift: shell completions and the man page.

use super::Cli;
use super::stdio::{Exit, write_stdout};
use clap::CommandFactory;
use std::process::ExitCode;

/// `extract-between completions SHELL`: the completion script on stdout.
pub(super) fn completions(shell: clap_complete::Shell) -> ExitCode {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "extract-between", &mut script);
    if shell == clap_complete::Shell::Bash {
        script = bash_states_named_alike(&script).into_bytes();
    }
    written(write_stdout(&script))
}

/// clap_complete's bash script records a subcommand as the state
/// `extract__between__subcmd__serve` but reads it back as
/// `extract__subcmd__between__subcmd__serve` (it escapes the binary name's hyphen two ways),
/// so no subcommand's options would complete: the reading side is named as the recording one.
fn bash_states_named_alike(script: &[u8]) -> String {
    String::from_utf8_lossy(script).replace("extract__subcmd__between", "extract__between")
}

/// `extract-between man`: the man page (roff) on stdout.
pub(super) fn man() -> ExitCode {
    let mut page = Vec::new();
    match clap_mangen::Man::new(Cli::command()).render(&mut page) {
        Ok(()) => {
            // clap_mangen writes a repeatable positional without its `...`.
            let page =
                String::from_utf8_lossy(&page).replacen("[\\fIPATH\\fR]", "[\\fIPATH\\fR]...", 1);
            written(write_stdout(page.as_bytes()))
        }
        Err(e) => {
            super::stdio::complain(format_args!("man: {e}"));
            Exit::Error.into()
        }
    }
}

fn written(result: Result<(), super::stdio::Reported>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(reported) => reported.into(),
    }
}
