//! The command-line front end (feature `cli`): grep-like streaming over files and stdin, the
//! card's JSON tool mode, the card itself, and `serve` for the HTTP service.
//!
//! Streaming mode reads each input in fixed-size chunks into one reused buffer and feeds the
//! [`Scanner`]; a match's content is gathered in one reused buffer (bounded by
//! `--max-match-bytes`) and written when its end marker is found, so an unclosed match is
//! never printed as if it were complete (`--count` gathers nothing: it only counts). Memory is
//! constant whatever the input size.

use crate::card::CARD_JSON;
use crate::request::{self, MAX_REQUEST_BYTES, payload_too_large_body};
use crate::{Capped, Markers, Pos, ScanError, Scanner, Sink};
mod input;
mod stdio;

use clap::{Args, Parser, Subcommand};
use core::ops::ControlFlow;
use input::open;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use stdio::write_stdout;

const AFTER_HELP: &str = "\
Examples:
  extract-between -s '<title>' -e '</title>' page.html
  curl -s https://example.com | extract-between -s '[' -e ']' --max-matches 10
  extract-between -s '\"' -e '\"' --json-lines notes.txt
  extract-between -c -s '<title>' -e '</title>' *.html
  extract-between -q -s '<title>' -e '</title>' page.html && echo has a title
  echo '{\"text\":\"pre[one]mid[two]post\",\"start\":\"[\",\"end\":\"]\"}' | extract-between tool
  extract-between serve --listen 127.0.0.1:8080

Exit status: 0 when at least one match was printed, 1 when none, 2 on any error.";

/// Extract the exact text between a literal start marker and a literal end marker.
///
/// The command line's grammar (clap); [`main`] parses and runs it.
///
/// ```
/// use clap::Parser;
/// assert!(extract_between::cli::Cli::try_parse_from(["extract-between", "-s", "[", "-e", "]"]).is_ok());
/// assert!(extract_between::cli::Cli::try_parse_from(["extract-between", "card"]).is_ok());
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
    #[cfg(feature = "server")]
    Serve(crate::server::ServeArgs),
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
    /// Files to read; each is its own text. Standard input when none or `-`.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// End each match with NUL instead of a newline.
    #[arg(short = '0', long = "null", conflicts_with = "json_lines")]
    null: bool,
    /// Print how many matches each input holds instead of the matches (`FILE:N` when there
    /// are several inputs). Nothing is gathered, so `--max-match-bytes` does not apply.
    #[arg(short, long, conflicts_with_all = ["json_lines", "null"])]
    count: bool,
    /// Print nothing: exit 0 at the first match (reading no further), 1 when there is none.
    #[arg(short, long, conflicts_with_all = ["json_lines", "null", "count"])]
    quiet: bool,
    /// One JSON object per match, with file name and byte and UTF-16 offsets.
    #[arg(long)]
    json_lines: bool,
    /// Stop after N matches per file (once it is known whether more exist).
    #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
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
}

/// Runs the command line; returns the process exit code.
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     extract_between::cli::main()
/// }
/// ```
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return stdio::clap_exit(&e),
    };
    match cli.command {
        Some(Command::Tool { request, file }) => {
            tool(request.or(file).filter(|p| p.as_os_str() != "-"))
        }
        Some(Command::Card) => match write_stdout(CARD_JSON.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(()) => ExitCode::from(2),
        },
        Some(Command::Mcp) => mcp(),
        #[cfg(feature = "server")]
        Some(Command::Serve(args)) => crate::server::main(args),
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
        eprintln!("extract-between: {name}: {e}");
        return ExitCode::from(2);
    }
    let (body, code) = if body.len() > MAX_REQUEST_BYTES {
        (payload_too_large_body(), 2)
    } else {
        let reply = request::execute(&body);
        (reply.body, reply.outcome.exit_code())
    };
    match write_stdout(format!("{body}\n").as_bytes()) {
        Ok(()) => ExitCode::from(code),
        Err(()) => ExitCode::from(2),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Lines,
    Null,
    Json,
    /// `--count`: matches are counted, not written.
    Count,
    /// `--quiet`: the first match ends the run.
    Quiet,
}

impl Format {
    /// Whether matches are written, so that their content is gathered (and held to
    /// `--max-match-bytes`); counting formats hold nothing.
    fn writes(self) -> bool {
        !matches!(self, Format::Count | Format::Quiet)
    }
}

/// Why streaming one input stopped with an error.
enum Failure {
    Scan(ScanError),
    MatchTooLarge(Pos, usize),
    Read(io::Error),
    Write(io::Error),
}

/// Gathers each match's content and writes it to the output when the match closes.
struct Writer<'a, W: Write> {
    out: &'a mut W,
    format: Format,
    file: &'a str,
    max_match_bytes: usize,
    content: Vec<u8>,
    /// The JSON line being written (`--json-lines`), reused.
    line: Vec<u8>,
    /// `,"file":` and the input's name as JSON, made for the first line.
    file_json: Vec<u8>,
    start: Pos,
    printed: u64,
    failure: Option<Failure>,
}

impl<W: Write> Writer<'_, W> {
    /// Writes one match: `content`, which starts at `start` and ends at `end`.
    fn write_match(&mut self, content: &[u8], start: Pos, end: Pos) -> io::Result<()> {
        match self.format {
            Format::Count | Format::Quiet => Ok(()),
            Format::Lines | Format::Null => {
                self.out.write_all(content)?;
                self.out.write_all(if self.format == Format::Null {
                    b"\0"
                } else {
                    b"\n"
                })
            }
            Format::Json => {
                // One line buffer for every match: no allocation per line. The scanner hands
                // out valid UTF-8 only, so the content is escaped as bytes, unchecked.
                let line = &mut self.line;
                line.clear();
                line.extend_from_slice(b"{\"match\":");
                request::push_json_bytes(line, content);
                if self.file_json.is_empty() {
                    // The same for every line of this input: escaped once.
                    self.file_json.extend_from_slice(b",\"file\":");
                    request::push_json_bytes(&mut self.file_json, self.file.as_bytes());
                }
                line.extend_from_slice(&self.file_json);
                request::push_offsets(line, start, end);
                line.extend_from_slice(b"}\n");
                self.out.write_all(line)
            }
        }
    }

    /// After writing a match: counts it, or records why writing failed.
    fn written(&mut self, result: io::Result<()>) -> ControlFlow<()> {
        if let Err(e) = result {
            self.failure = Some(Failure::Write(e));
            return ControlFlow::Break(());
        }
        self.printed += 1;
        if self.format == Format::Quiet {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}

impl<W: Write> Sink for Writer<'_, W> {
    fn open(&mut self, _marker: Pos, content: Pos) -> ControlFlow<()> {
        self.content.clear();
        self.start = content;
        ControlFlow::Continue(())
    }

    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
        if !self.format.writes() {
            // Counted, not written: nothing to gather, whatever the match's length.
            return ControlFlow::Continue(());
        }
        if self.content.len() + fragment.len() > self.max_match_bytes {
            self.failure = Some(Failure::MatchTooLarge(self.start, self.max_match_bytes));
            return ControlFlow::Break(());
        }
        self.content.extend_from_slice(fragment);
        ControlFlow::Continue(())
    }

    fn close(&mut self, content_end: Pos, _marker_end: Pos) -> ControlFlow<()> {
        let content = std::mem::take(&mut self.content);
        let result = self.write_match(&content, self.start, content_end);
        // Keep the buffer for the next match, unless one huge match made it huge.
        if content.capacity() <= 1 << 20 {
            self.content = content;
        }
        self.written(result)
    }

    fn matched(&mut self, open: [Pos; 2], content: &[u8], close: [Pos; 2]) -> ControlFlow<()> {
        // The whole match lies in the chunk just read: write it from there, no gathering.
        if content.len() > self.max_match_bytes && self.format.writes() {
            self.failure = Some(Failure::MatchTooLarge(open[1], self.max_match_bytes));
            return ControlFlow::Break(());
        }
        let result = self.write_match(content, open[1], close[0]);
        self.written(result)
    }

    fn utf16_offsets(&self) -> bool {
        // Only JSON lines print them; plain output skips the counting (2x on CJK text).
        self.format == Format::Json
    }
}

const READ_CHUNK: usize = 64 * 1024;

fn stream(args: StreamArgs) -> ExitCode {
    let (Some(start), Some(end)) = (args.start, args.end) else {
        eprintln!("extract-between: both -s/--start and -e/--end are required");
        return ExitCode::from(2);
    };
    let markers = match Markers::new(start, end) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("extract-between: {e}");
            return ExitCode::from(2);
        }
    };
    let format = if args.json_lines {
        Format::Json
    } else if args.count {
        Format::Count
    } else if args.quiet {
        Format::Quiet
    } else if args.null {
        Format::Null
    } else {
        Format::Lines
    };
    let files = if args.files.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.files
    };
    // As grep -c: counts are named when there are several inputs.
    let name_counts = files.len() > 1;
    let show_progress = !args.no_progress && (args.progress || io::stderr().is_terminal());
    let stdout = io::stdout().lock();
    let mut out = BufWriter::with_capacity(128 * 1024, stdout);
    let mut buf = vec![0u8; READ_CHUNK];
    let mut content = Vec::new();
    let (mut any_match, mut any_error) = (false, false);
    for path in &files {
        let input = match open(path) {
            Ok(i) => i,
            Err(e) => {
                eprintln!("extract-between: {}: {e}", path.display());
                any_error = true;
                continue;
            }
        };
        let label = if input.name == "-" {
            "(standard input)".to_string()
        } else {
            input.name.clone()
        };
        let bar = match input.size {
            Some(size) if show_progress => Some(progress_bar(size, args.progress)),
            _ => None,
        };
        let mut writer = Writer {
            out: &mut out,
            format,
            file: &input.name,
            max_match_bytes: args.max_match_bytes,
            content: std::mem::take(&mut content),
            line: Vec::new(),
            file_json: Vec::new(),
            start: Pos::default(),
            printed: 0,
            failure: None,
        };
        let mut sink = Capped::new(&mut writer, args.max_matches.unwrap_or(u64::MAX));
        let result = run_one(&markers, input.reader, &mut buf, &mut sink, bar.as_ref());
        let truncated = sink.truncated();
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        any_match |= writer.printed > 0;
        if format == Format::Quiet && any_match {
            // As grep -q: a match is the answer, whatever failed before it.
            return ExitCode::SUCCESS;
        }
        content = std::mem::take(&mut writer.content);
        // The count of the matches completed before any failure, as the other formats print
        // those matches (a failed write has nowhere to go).
        let result = match result {
            Err(failure @ Failure::Write(_)) => Err(failure),
            result if format == Format::Count => {
                let n = writer.printed;
                let line = if name_counts {
                    format!("{label}:{n}\n")
                } else {
                    format!("{n}\n")
                };
                writer
                    .out
                    .write_all(line.as_bytes())
                    .map_err(Failure::Write)
                    .and(result)
            }
            result => result,
        };
        match result {
            Ok(()) => {
                if truncated {
                    eprintln!(
                        "extract-between: {label}: output truncated after {} matches (--max-matches); more follow",
                        writer.printed
                    );
                }
            }
            Err(Failure::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
                // The reader went away (`| head`): end quietly, as grep and ripgrep do.
                return ExitCode::from(if any_match { 0 } else { 1 });
            }
            Err(failure @ Failure::Write(_)) => {
                // Output that cannot be written (a full disk) ends the run: the other files
                // would only fail the same way, and a final flush would say it again.
                report(&label, failure, false);
                return ExitCode::from(2);
            }
            Err(failure) => {
                any_error = true;
                report(&label, failure, format == Format::Json);
            }
        }
    }
    if let Err(e) = out.flush() {
        if e.kind() == io::ErrorKind::BrokenPipe {
            return ExitCode::from(if any_match { 0 } else { 1 });
        }
        eprintln!("extract-between: writing output: {e}");
        return ExitCode::from(2);
    }
    ExitCode::from(if any_error {
        2
    } else if any_match {
        0
    } else {
        1
    })
}

fn report(label: &str, failure: Failure, utf16: bool) {
    // Without --json-lines UTF-16 offsets are not counted; say only what is known.
    let at = |p: Pos| {
        if utf16 {
            format!("byte offset {} (UTF-16 offset {})", p.byte, p.utf16)
        } else {
            format!("byte offset {}", p.byte)
        }
    };
    match failure {
        Failure::Scan(ScanError::Unclosed { marker }) => {
            eprintln!(
                "extract-between: {label}: unclosed start marker at {}",
                at(marker)
            );
        }
        Failure::Scan(e) => eprintln!("extract-between: {label}: {e}"),
        Failure::MatchTooLarge(p, max) => eprintln!(
            "extract-between: {label}: match_too_large: the match starting at {} is longer than {max} bytes (--max-match-bytes)",
            at(p)
        ),
        Failure::Read(e) => eprintln!("extract-between: {label}: read error: {e}"),
        Failure::Write(e) => eprintln!("extract-between: writing output: {e}"),
    }
}

/// Streams one input into the writer; the first failure ends it (after every match
/// completed before it was written).
fn run_one<W: Write>(
    markers: &Markers,
    mut reader: Box<dyn Read>,
    buf: &mut [u8],
    sink: &mut Capped<&mut Writer<'_, W>>,
    bar: Option<&indicatif::ProgressBar>,
) -> Result<(), Failure> {
    let mut scanner = Scanner::new(markers);
    loop {
        let n = match reader.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Read(e)),
        };
        if let Some(bar) = bar {
            bar.inc(n as u64);
        }
        match scanner.feed(&buf[..n], sink) {
            Ok(ControlFlow::Continue(())) => {}
            // Either the cap and truncation are known (stop reading: done), or the writer
            // recorded a failure.
            Ok(ControlFlow::Break(())) => return sink.get_mut().failure.take().map_or(Ok(()), Err),
            Err(e) => return Err(Failure::Scan(e)),
        }
    }
    scanner.finish(sink).map_err(Failure::Scan)
}

fn progress_bar(size: u64, forced: bool) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(size);
    if forced && !io::stderr().is_terminal() {
        // indicatif draws nothing when stderr is not a terminal; `--progress` asks for it
        // anyway, so write one plain line a second instead of redrawing in place.
        bar.set_draw_target(indicatif::ProgressDrawTarget::term_like_with_hz(
            Box::new(PlainLines(std::sync::Mutex::new(None))),
            1,
        ));
    }
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// A "terminal" that cannot move the cursor: a redraw becomes a new stderr line, at most one
/// a second (indicatif's own rate limit allows bursts).
#[derive(Debug)]
struct PlainLines(std::sync::Mutex<Option<std::time::Instant>>);

impl PlainLines {
    fn line(&self, s: &str) -> io::Result<()> {
        let Ok(mut last) = self.0.lock() else {
            return Ok(());
        };
        let now = std::time::Instant::now();
        if s.trim().is_empty() || last.is_some_and(|t| now.duration_since(t).as_secs() < 1) {
            return Ok(());
        }
        *last = Some(now);
        writeln!(io::stderr(), "{}", s.trim_end())
    }
}

impl indicatif::TermLike for PlainLines {
    fn width(&self) -> u16 {
        80
    }
    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> io::Result<()> {
        self.line(s)
    }
    fn write_str(&self, s: &str) -> io::Result<()> {
        self.line(s)
    }
    fn clear_line(&self) -> io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> io::Result<()> {
        io::stderr().flush()
    }
}

/// `extract-between mcp`: MCP over stdio until stdin closes (exit 0); a failed read or
/// write is exit 2 with a message.
fn mcp() -> ExitCode {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    match crate::mcp::serve_stdio(stdin.lock(), stdout.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("extract-between: mcp: {e}");
            ExitCode::from(2)
        }
    }
}
