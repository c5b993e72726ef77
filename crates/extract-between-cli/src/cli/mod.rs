//! The command-line front end: grep-like streaming over files, directory
//! trees and stdin, the card's JSON tool mode, the card itself, `mcp` for agents, and
//! `serve` for the HTTP service. This file is the dispatch; the grammar (`args`), the flags
//! resolved once (`config`), ordering and walking the inputs (`search`), searching one input
//! (`scan`), and the process's boundary (exit status, messages, standard output: `stdio`)
//! each have their own file.
//!
//! Streaming mode reads each input in fixed-size chunks into one reused buffer and feeds the
//! [`Scanner`](extract_between::Scanner); a match's content is gathered in one reused buffer (bounded by
//! `--max-match-bytes`) and written when its end marker is found, so an unclosed match is
//! never printed as if it were complete (`--count` gathers nothing: it only counts). Memory is
//! constant whatever the input size.

use extract_between::card::CARD_JSON;
use extract_between::request::{self, MAX_REQUEST_BYTES, payload_too_large_body};
mod args;
mod config;
mod encoding;
mod engine;
mod generate;
mod input;
mod lines;
mod printer;
mod progress;
mod read;
mod search;
mod stdio;

pub use args::Cli;
use args::{Command, StreamArgs, markers_tip};
use clap::Parser;
use config::Config;
use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use stdio::{Exit, complain, write_stdout};

/// Runs the command line; returns the process exit code.
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     extract_between_cli::cli::main()
/// }
/// ```
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = stdio::clap_exit(&e);
            if e.kind() == clap::error::ErrorKind::MissingRequiredArgument
                && let Some(tip) = markers_tip(&args)
            {
                eprintln!("\n{tip}");
            }
            return code;
        }
    };
    match cli.command {
        Some(Command::Tool { request, file }) => {
            tool(request.or(file).filter(|p| p.as_os_str() != "-"))
        }
        Some(Command::Card) => match write_stdout(CARD_JSON.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(reported) => reported.into(),
        },
        Some(Command::Mcp) => mcp(),
        Some(Command::Serve(args)) => crate::server::main(*args),
        Some(Command::Completions { shell }) => generate::completions(shell),
        Some(Command::Man { page }) => generate::man(page.as_deref()),
        None => stream(cli.stream),
    }
}

fn tool(path: Option<PathBuf>) -> ExitCode {
    let mut body = Vec::new();
    let read = match &path {
        Some(p) => {
            File::open(p).and_then(|f| f.take(MAX_REQUEST_BYTES as u64 + 1).read_to_end(&mut body))
        }
        None => io::stdin()
            .lock()
            .take(MAX_REQUEST_BYTES as u64 + 1)
            .read_to_end(&mut body),
    };
    if let Err(e) = read {
        let name = path.map_or("standard input".into(), |p| p.display().to_string());
        complain(format_args!("{name}: {e}"));
        return Exit::Error.into();
    }
    let (body, code) = if body.len() > MAX_REQUEST_BYTES {
        (payload_too_large_body(), 2)
    } else {
        let reply = request::execute(&body);
        (reply.body, tool_exit_code(reply.outcome))
    };
    match write_stdout(format!("{body}\n").as_bytes()) {
        Ok(()) => ExitCode::from(code),
        Err(reported) => reported.into(),
    }
}

/// Tool mode's exit code, as grep's: 0 the card's output, 1 an unclosed start marker, 2
/// invalid input.
fn tool_exit_code(outcome: request::Outcome) -> u8 {
    match outcome {
        request::Outcome::Output => 0,
        request::Outcome::Unclosed => 1,
        request::Outcome::InvalidInput => 2,
    }
}

/// `extract-between mcp`: MCP over stdio until stdin closes (exit 0); a failed read or
/// write is exit 2 with a message.
fn mcp() -> ExitCode {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    match crate::mcp::serve_stdio(stdin.lock(), stdout.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        // The client went away: a normal end, as for the CLI's output to a closed pipe.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            complain(format_args!("mcp: {e}"));
            Exit::Error.into()
        }
    }
}

fn stream(args: StreamArgs) -> ExitCode {
    match Config::resolve(args) {
        Ok(config) => search::run(config).into(),
        Err(e) => {
            complain(e);
            Exit::Error.into()
        }
    }
}
