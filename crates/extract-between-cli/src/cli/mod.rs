//! The command-line front end: grep-like streaming over files, directory
//! trees and stdin, the card's JSON tool mode, the card itself, `mcp` for agents, and
//! `serve` for the HTTP service. This file is the grammar and the dispatch; searching one
//! input, walking and ordering many, and the process's boundary (exit status, messages,
//! standard output) each have their own file.
//!
//! Streaming mode reads each input in fixed-size chunks into one reused buffer and feeds the
//! [`Scanner`](extract_between::Scanner); a match's content is gathered in one reused buffer (bounded by
//! `--max-match-bytes`) and written when its end marker is found, so an unclosed match is
//! never printed as if it were complete (`--count` gathers nothing: it only counts). Memory is
//! constant whatever the input size.

use extract_between::Markers;
use extract_between::card::CARD_JSON;
use extract_between::request::{self, MAX_REQUEST_BYTES, payload_too_large_body};
mod encoding;
mod generate;
mod input;
mod progress;
mod scan;
mod search;
mod stdio;

use clap::{Args, Parser, Subcommand};
use scan::Format;
use search::{Search, Settings, WalkOptions};
use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use stdio::{Exit, complain, write_stdout};

const AFTER_HELP: &str = "\
Examples:
  extract-between -s '<title>' -e '</title>' page.html
  extract-between -s '<title>' -e '</title>' site/          # a tree, as ripgrep walks it
  extract-between -l -s '<title>' -e '</title>' -g '*.html' site/
  curl -s https://example.com | extract-between -s '[' -e ']' --max-matches 10
  extract-between -s '\"' -e '\"' --json-lines notes.txt
  extract-between -c -s '<title>' -e '</title>' *.html
  extract-between -q -s '<title>' -e '</title>' page.html && echo has a title
  echo '{\"text\":\"pre[one]mid[two]post\",\"start\":\"[\",\"end\":\"]\"}' | extract-between tool
  extract-between serve --listen 127.0.0.1:8080

-0 ends each match with NUL (matches may hold newlines); ripgrep's -0 ends file names
with NUL instead, which -0 also does here with -l. Tree flags mean what they mean in
ripgrep: -L follows symbolic links (GNU grep's -L lists files without a match), -g is a
glob, -j the number of threads.

Exit status: 0 when at least one match was printed, 1 when none, 2 when any input failed
(every other input is still searched).";

/// Extract the exact text between a literal start marker and a literal end marker.
///
/// The command line's grammar (clap); [`main`] parses and runs it.
///
/// ```
/// use clap::Parser;
/// assert!(extract_between_cli::cli::Cli::try_parse_from(["extract-between", "-s", "[", "-e", "]"]).is_ok());
/// assert!(extract_between_cli::cli::Cli::try_parse_from(["extract-between", "card"]).is_ok());
/// ```
#[derive(Debug, Parser)]
// `long_about = None`: clap would otherwise print this rustdoc (code block and all) as
// `--help`'s description.
#[command(name = "extract-between", version, about, long_about = None, after_help = AFTER_HELP)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    stream: StreamArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Read one request JSON (the card's input schema) and print the response JSON.
    Tool {
        /// Read the request from FILE instead of standard input.
        #[arg(long, value_name = "FILE")]
        request: Option<PathBuf>,
        /// The same as `--request FILE` (as the streaming mode takes its files; `-` is
        /// standard input).
        #[arg(value_name = "FILE", conflicts_with = "request")]
        file: Option<PathBuf>,
    },
    /// Print the tool card.
    Card,
    /// Serve the tool to an MCP client on stdin/stdout (JSON-RPC, a message a line);
    /// exits when stdin closes.
    Mcp,
    /// Run the HTTP service.
    Serve(crate::server::ServeArgs),
    /// Print a completion script for SHELL (bash, zsh, fish, powershell, elvish).
    ///
    /// bash: `extract-between completions bash > /etc/bash_completion.d/extract-between`
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `extract-between man | man -l -`.
    Man,
}

#[derive(Debug, Args)]
struct StreamArgs {
    /// The start marker (literal text, 1 to 4096 UTF-8 bytes).
    #[arg(
        short,
        long,
        value_name = "START",
        required = true,
        allow_hyphen_values = true
    )]
    start: Option<String>,
    /// The end marker (literal text, 1 to 4096 UTF-8 bytes).
    #[arg(
        short,
        long,
        value_name = "END",
        required = true,
        allow_hyphen_values = true
    )]
    end: Option<String>,
    /// Files and directories to read; each file is its own text. `-` is standard input;
    /// with none, standard input when it is a pipe or a file, else the current directory
    /// (as ripgrep).
    #[arg(value_name = "PATH")]
    files: Vec<PathBuf>,
    /// End each match with NUL instead of a newline (with -l, each file name).
    #[arg(short = '0', long = "null", conflicts_with = "json_lines")]
    null: bool,
    /// Print only the names of files holding a match.
    #[arg(short = 'l', long, conflicts_with_all = ["json_lines", "count", "quiet"])]
    files_with_matches: bool,
    /// Print `PATH:` before each match (the default with a directory or several files).
    #[arg(short = 'H', long, overrides_with = "no_filename")]
    with_filename: bool,
    /// Never print file names before matches or counts.
    #[arg(long)]
    no_filename: bool,
    /// Search files that ignore files (.gitignore, .ignore, .git/info/exclude) exclude.
    #[arg(long)]
    no_ignore: bool,
    /// Search hidden files and directories.
    #[arg(long)]
    hidden: bool,
    /// Search only files matching GLOB (repeatable; `!GLOB` excludes), as ripgrep's -g.
    #[arg(
        short = 'g',
        long = "glob",
        value_name = "GLOB",
        allow_hyphen_values = true
    )]
    globs: Vec<String>,
    /// Descend at most N directories below each path given.
    #[arg(long, value_name = "N")]
    max_depth: Option<usize>,
    /// Follow symbolic links while walking.
    #[arg(short = 'L', long)]
    follow: bool,
    /// Threads searching a tree (default: the number of cores; at most 8 per core).
    #[arg(short = 'j', long, value_name = "N", value_parser = at_least_one)]
    threads: Option<u64>,
    /// Search trees in path order, on one thread, for deterministic output.
    #[arg(long, value_name = "KIND", value_enum)]
    sort: Option<SortKind>,
    /// Print how many matches each input holds instead of the matches (`PATH:N` with a
    /// directory or several inputs). Nothing is gathered, so `--max-match-bytes` does not
    /// apply.
    #[arg(short, long, conflicts_with_all = ["json_lines", "null"])]
    count: bool,
    /// With -c, print inputs without a match too (`PATH:0`).
    #[arg(long, requires = "count")]
    include_zero: bool,
    /// Search binary files as text: print their matches (a file named on the command line
    /// is searched either way, its matches replaced by a notice) and walk into them.
    #[arg(short = 'a', long)]
    text: bool,
    /// Decode inputs from ENCODING (any WHATWG label: utf-16le, latin1, shift_jis, …);
    /// `none` reads bytes as they are. By default a byte order mark decides (UTF-16 files
    /// are transcoded, as ripgrep does).
    #[arg(short = 'E', long, value_name = "ENCODING")]
    encoding: Option<String>,
    /// Read bytes as they are, a byte order mark included (as `-E none`).
    #[arg(long, conflicts_with = "encoding")]
    no_encoding: bool,
    /// Print nothing: exit 0 at the first match (reading no further), 1 when there is none.
    #[arg(short, long, conflicts_with_all = ["json_lines", "null", "count"])]
    quiet: bool,
    /// One JSON object per match, with file name and byte and UTF-16 offsets.
    #[arg(long)]
    json_lines: bool,
    /// Stop after N matches per file (once it is known whether more exist).
    #[arg(short, long, value_name = "N", value_parser = at_least_one)]
    max_matches: Option<u64>,
    /// Fail on a match longer than N bytes instead of holding it.
    #[arg(long, value_name = "N", default_value_t = 16 * 1024 * 1024)]
    max_match_bytes: usize,
    /// Show a progress bar on stderr (default: only for files when stderr is a terminal).
    #[arg(long, overrides_with = "no_progress")]
    progress: bool,
    /// Never show a progress bar.
    #[arg(long)]
    no_progress: bool,
    /// Colour file names: `auto` on a terminal unless `NO_COLOR` is set, `always`, `never`.
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// A count that must be at least 1 (`-m`, `-j`), said in words rather than as a range.
fn at_least_one(value: &str) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("must be a whole number of at least 1 ({e})")),
    }
}

/// A marker the card refuses, said with the flag that gave it.
fn marker_error(e: &extract_between::MarkerError) -> String {
    use extract_between::{MarkerError, Which};
    let flag = match e.which() {
        Which::Start => "-s/--start",
        Which::End => "-e/--end",
    };
    match e {
        MarkerError::Empty(_) => format!("{flag} must not be empty"),
        MarkerError::TooLong { len, .. } => format!(
            "{flag} must be at most {} UTF-8 bytes long (it is {len} bytes)",
            extract_between::card::MAX_MARKER_BYTES
        ),
    }
}

/// The markers given as paths, as `grep PATTERN FILE` habits write them: the command line
/// with `-s` and `-e`, for clap's "required" error to suggest.
fn markers_tip(args: &[std::ffi::OsString]) -> Option<String> {
    let words: Vec<&str> = args.iter().skip(1).filter_map(|a| a.to_str()).collect();
    let named = words.iter().any(|w| {
        w.starts_with("-s")
            || w.starts_with("-e")
            || w.starts_with("--start")
            || w.starts_with("--end")
    });
    let positional: Vec<&&str> = words.iter().filter(|w| !w.starts_with('-')).collect();
    if named || positional.len() < 2 {
        return None;
    }
    let quote = |w: &str| format!("'{}'", w.replace('\'', "'\\''"));
    let rest: Vec<String> = positional[2..].iter().map(|w| quote(w)).collect();
    Some(format!(
        "tip: the markers are options: extract-between -s {} -e {}{}{}",
        quote(positional[0]),
        quote(positional[1]),
        if rest.is_empty() { "" } else { " " },
        rest.join(" ")
    ))
}

/// When file names are coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set (to anything but empty) or `TERM` is `dumb`.
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    fn colors(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
                    && io::IsTerminal::is_terminal(&io::stdout())
            }
        }
    }
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum SortKind {
    /// By path.
    Path,
}

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
        Some(Command::Serve(args)) => crate::server::main(args),
        Some(Command::Completions { shell }) => generate::completions(shell),
        Some(Command::Man) => generate::man(),
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
    // clap requires both; the default keeps this free of a panic path.
    let start = args.start.unwrap_or_default();
    let end = args.end.unwrap_or_default();
    let markers = match Markers::new(start, end) {
        Ok(m) => m,
        Err(e) => {
            complain(marker_error(&e));
            return Exit::Error.into();
        }
    };
    let format = if args.json_lines {
        Format::Json
    } else if args.count {
        Format::Count
    } else if args.quiet {
        Format::Quiet
    } else if args.files_with_matches {
        Format::Files
    } else if args.null {
        Format::Null
    } else {
        Format::Lines
    };
    let implicit_root = args.files.is_empty() && io::IsTerminal::is_terminal(&io::stdin());
    let files = if !args.files.is_empty() {
        args.files
    } else if implicit_root {
        // Nobody is typing the text: search here, as ripgrep does.
        vec![PathBuf::from(".")]
    } else {
        vec![PathBuf::from("-")]
    };
    let any_dir = files.iter().any(|p| p.as_os_str() != "-" && p.is_dir());
    // As grep and ripgrep: names with a directory or several inputs.
    let with_filename = if args.no_filename {
        false
    } else {
        args.with_filename || any_dir || files.len() > 1
    };
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        |n| usize::try_from(n).map_or(usize::MAX, |n| n.min(search::max_threads())),
    );
    let decoding = match encoding::Decoding::parse(args.encoding.as_deref(), args.no_encoding) {
        Ok(d) => d,
        Err(e) => {
            complain(e);
            return Exit::Error.into();
        }
    };
    let globs = match search::globs(&args.globs) {
        Ok(globs) => globs,
        Err(e) => {
            complain(e);
            return Exit::Error.into();
        }
    };
    let sort = args.sort.is_some();
    // No bars while files are searched side by side.
    let progress = if any_dir && threads > 1 && !sort {
        search::Progress::Off
    } else {
        search::progress_choice(args.progress, args.no_progress)
    };
    let search = Search::new(Settings {
        markers,
        format,
        max_matches: args.max_matches.unwrap_or(u64::MAX),
        max_match_bytes: args.max_match_bytes,
        with_filename,
        null_names: args.null,
        include_zero: args.include_zero,
        text: args.text,
        decoding,
        progress,
        color: args.color.colors() && format != Format::Json,
        walk: WalkOptions {
            no_ignore: args.no_ignore,
            hidden: args.hidden,
            globs,
            max_depth: args.max_depth,
            follow: args.follow,
            threads,
            sort,
            implicit_root,
        },
    });
    search::run(&search, &files).into()
}
