//! Searching one input: the sink that writes each match as it closes (or counts it), the
//! read loop that feeds the scanner, and how a failure is reported.

use super::config::{Format, Progress, Settings};
use super::encoding::Decoding;
use super::input::Input;
use super::progress::progress_bar;
use super::stdio::complain;
use core::ops::ControlFlow;
use extract_between::__private as json;
use extract_between::{Capped, Markers, Pos, ScanError, Scanner, Sink};
use std::io::{self, Read, Write};

/// What becomes of an input that looks binary (a NUL byte in its first block, as ripgrep
/// decides): a file named on the command line is searched, its matches replaced by one
/// notice; one found by walking a tree is skipped; with `-a/--text` every input is text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Binary {
    Search,
    Skip,
    Text,
}

/// Why streaming one input stopped with an error.
pub(super) enum Failure {
    Scan(ScanError),
    MatchTooLarge(Pos, usize),
    Read(io::Error),
    Write(io::Error),
}

/// Gathers each match's content and writes it to the output when the match closes.
pub(super) struct Writer<'a, W: Write> {
    out: &'a mut W,
    format: Format,
    /// The input's name as the system holds it (`-` for standard input).
    file: &'a [u8],
    /// `PATH:` before each match (with a directory or several files), or nothing.
    prefix: &'a [u8],
    max_match_bytes: usize,
    content: Vec<u8>,
    /// The JSON line being written (`--json-lines`), reused.
    line: Vec<u8>,
    /// `,"file":` and the input's name as JSON, made for the first line.
    file_json: Vec<u8>,
    start: Pos,
    printed: u64,
    failure: Option<Failure>,
    /// Where the NUL byte of a binary input is: its matches are counted, not printed.
    binary_at: Option<u64>,
}

impl<'a, W: Write> Writer<'a, W> {
    /// A writer of one input's matches to `out`; `content` is a buffer to reuse for a match
    /// split across reads (given back by [`Writer::into_content`]).
    pub(super) fn new(
        out: &'a mut W,
        format: Format,
        file: &'a [u8],
        prefix: &'a [u8],
        max_match_bytes: usize,
        content: Vec<u8>,
    ) -> Writer<'a, W> {
        Writer {
            out,
            format,
            file,
            prefix,
            max_match_bytes,
            content,
            line: Vec::new(),
            file_json: Vec::new(),
            start: Pos::default(),
            printed: 0,
            failure: None,
            binary_at: None,
        }
    }

    /// The input is binary (a NUL byte at `offset`): its matches are not printed, a notice
    /// is, as ripgrep does.
    fn binary(&mut self, offset: u64) {
        self.binary_at = Some(offset);
    }

    /// The matches written (or counted) so far.
    pub(super) fn printed(&self) -> u64 {
        self.printed
    }

    /// The content buffer, for the next input.
    pub(super) fn into_content(self) -> Vec<u8> {
        self.content
    }

    /// The line that ends an input's output: its count (`-c`, after the `PATH:` prefix
    /// when names are shown; a count of 0 only with `include_zero`), its name (`-l`, when it
    /// has a match; NUL-ended with `-0`), or a binary input's notice in place of its matches.
    pub(super) fn summary(
        &mut self,
        name: &[u8],
        null_names: bool,
        include_zero: bool,
    ) -> io::Result<()> {
        match self.format {
            Format::Count if self.printed == 0 && !include_zero => Ok(()),
            Format::Lines | Format::Null if self.printed > 0 => match self.binary_at {
                Some(offset) => {
                    let mut line = self.prefix.to_vec();
                    if !line.is_empty() {
                        line.push(b' ');
                    }
                    line.extend_from_slice(
                        format!(
                            "binary file matches (found \"\\0\" byte around offset {offset})\n"
                        )
                        .as_bytes(),
                    );
                    self.out.write_all(&line)
                }
                None => Ok(()),
            },
            Format::Count => {
                let mut line = self.prefix.to_vec();
                line.extend_from_slice(self.printed.to_string().as_bytes());
                line.push(b'\n');
                self.out.write_all(&line)
            }
            Format::Files if self.printed > 0 => {
                let end: &[u8] = if null_names { b"\0" } else { b"\n" };
                self.out.write_all(&[name, end].concat())
            }
            _ => Ok(()),
        }
    }

    /// Writes one match: `content`, which starts at `start` and ends at `end`.
    fn write_match(&mut self, content: &[u8], start: Pos, end: Pos) -> io::Result<()> {
        match self.format {
            Format::Count | Format::Quiet | Format::Files => Ok(()),
            Format::Lines | Format::Null if self.binary_at.is_some() => Ok(()),
            Format::Lines | Format::Null => {
                if !self.prefix.is_empty() {
                    self.out.write_all(self.prefix)?;
                }
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
                json::push_json_bytes(line, content);
                if self.file_json.is_empty() {
                    // The same for every line of this input: escaped once.
                    self.file_json.extend_from_slice(b",\"file\":");
                    push_file_json(&mut self.file_json, self.file);
                }
                line.extend_from_slice(&self.file_json);
                json::push_offsets(line, start, end);
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
        if matches!(self.format, Format::Quiet | Format::Files) {
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
        // Only JSON lines print them; plain output skips the counting, a large share on CJK text.
        self.format == Format::Json
    }
}

/// The read size of the streaming mode.
pub(super) const READ_CHUNK: usize = 64 * 1024;

pub(super) fn report(label: &str, failure: Failure, utf16: bool) {
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
            complain(format_args!(
                "{label}: unclosed start marker at {}",
                at(marker)
            ));
        }
        Failure::Scan(e) => complain(format_args!("{label}: {e}")),
        Failure::MatchTooLarge(p, max) => complain(format_args!(
            "{label}: match_too_large: the match starting at {} is longer than {max} bytes (--max-match-bytes)",
            at(p)
        )),
        Failure::Read(e) => complain(format_args!("{label}: read error: {e}")),
        Failure::Write(e) => complain(format_args!("writing output: {e}")),
    }
}

/// Streams one input into the writer, decoded as `decoding` says; the first failure ends it (after every match
/// completed before it was written). An input whose first block holds a NUL byte is not
/// searched with [`Binary::Skip`] (`Ok(false)`), and searched for a notice instead of its
/// matches with [`Binary::Search`].
pub(super) fn run_one<W: Write>(
    markers: &Markers,
    reader: &mut dyn Read,
    buf: &mut [u8],
    sink: &mut Capped<&mut Writer<'_, W>>,
    mut bar: Option<&mut super::progress::Bar>,
    (binary, decoding): (Binary, Decoding),
) -> Result<bool, Failure> {
    let mut scanner = Scanner::new(markers);
    let mut first = true;
    loop {
        let mut n = match reader.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Read(e)),
        };
        // The first bytes are read until a byte order mark is whole or ruled out.
        while first && decoding.wants_more(&buf[..n]) {
            match reader.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(more) => n += more,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Failure::Read(e)),
            }
        }
        if first && let Some(mut decoded) = decoding.reader(&buf[..n], reader) {
            // The input read again through its decoder, from its first byte.
            return run_one(
                markers,
                &mut *decoded,
                buf,
                sink,
                bar,
                (binary, Decoding::Off),
            );
        }
        if std::mem::take(&mut first)
            && binary != Binary::Text
            && let Some(nul) = memchr::memchr(0, &buf[..n])
        {
            if binary == Binary::Skip {
                return Ok(false);
            }
            sink.get_mut().binary(nul as u64);
        }
        if let Some(bar) = bar.as_deref_mut() {
            bar.inc(n as u64);
        }
        match scanner.feed(&buf[..n], sink) {
            Ok(ControlFlow::Continue(())) => {}
            // Either the cap and truncation are known (stop reading: done), or the writer
            // recorded a failure.
            Ok(ControlFlow::Break(())) => {
                return sink.get_mut().failure.take().map_or(Ok(true), Err);
            }
            Err(e) => return Err(Failure::Scan(e)),
        }
    }
    scanner.finish(sink).map_err(Failure::Scan).map(|()| true)
}

/// A file name as JSON: a string when it is UTF-8, else `{"bytes":"<base64>"}` (as
/// ripgrep's `--json` gives such names), which a consumer can turn back into the name.
fn push_file_json(out: &mut Vec<u8>, name: &[u8]) {
    use base64::Engine;
    if std::str::from_utf8(name).is_ok() {
        json::push_json_bytes(out, name);
    } else {
        out.extend_from_slice(b"{\"bytes\":\"");
        out.extend_from_slice(
            base64::engine::general_purpose::STANDARD
                .encode(name)
                .as_bytes(),
        );
        out.extend_from_slice(b"\"}");
    }
}

/// Reusable buffers of one worker.
pub(super) struct Buffers {
    read: Vec<u8>,
    content: Vec<u8>,
}

impl Buffers {
    pub(super) fn new() -> Buffers {
        Buffers {
            read: vec![0u8; READ_CHUNK],
            content: Vec::new(),
        }
    }
}

/// How one input's search went, for the run to count: a match printed, a failure said on
/// stderr, or output that could not be written (which ends the run).
pub(super) struct Searched {
    pub(super) matched: bool,
    pub(super) failed: bool,
    pub(super) write_error: Option<io::Error>,
}

/// Searches one opened input into `out`: its matches (or count, or name), a notice of
/// truncation, and its failure said on stderr.
pub(super) fn search_input<W: Write>(
    settings: &Settings,
    input: Input,
    binary: Binary,
    out: &mut W,
    buffers: &mut Buffers,
) -> Searched {
    let Names {
        label,
        shown,
        prefix,
    } = Names::of(&input, settings);
    let mut bar = bar_for(input.size, settings.progress);
    let mut writer = Writer::new(
        out,
        settings.format,
        &input.bytes,
        &prefix,
        settings.max_match_bytes,
        std::mem::take(&mut buffers.content),
    );
    let mut sink = Capped::new(&mut writer, settings.max_matches);
    let mut reader = input.reader;
    let result = run_one(
        &settings.markers,
        &mut *reader,
        &mut buffers.read,
        &mut sink,
        bar.as_mut(),
        (binary, settings.decoding),
    );
    let truncated = sink.truncated();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let mut searched = Searched {
        matched: writer.printed() > 0,
        failed: false,
        write_error: None,
    };
    if searched.matched && settings.format == Format::Quiet {
        return searched;
    }
    let result = summarized(&mut writer, result, &shown, settings);
    let printed = writer.printed();
    buffers.content = writer.into_content();
    match result {
        Ok(_) if truncated => say_truncated(&label, printed),
        Ok(_) => {}
        Err(Failure::Write(e)) => searched.write_error = Some(e),
        Err(failure) => {
            searched.failed = true;
            report(&label, failure, settings.format == Format::Json);
        }
    }
    searched
}

/// The input's closing line written after its result: the count of the matches completed
/// before any failure, as the other formats print those matches (a failed write has nowhere
/// to go); `-l` names a file with a match.
fn summarized<W: Write>(
    writer: &mut Writer<'_, W>,
    result: Result<bool, Failure>,
    shown: &[u8],
    settings: &Settings,
) -> Result<bool, Failure> {
    match result {
        done @ (Ok(true)
        | Err(Failure::Scan(_) | Failure::MatchTooLarge(..) | Failure::Read(_))) => writer
            .summary(shown, settings.null_names, settings.include_zero)
            .map_err(Failure::Write)
            .and(done),
        other => other,
    }
}

/// `--max-matches` cut an input's output: said on stderr, as the card's `truncated`.
fn say_truncated(label: &str, printed: u64) {
    let matches = if printed == 1 { "match" } else { "matches" };
    complain(format_args!(
        "{label}: output truncated after {printed} {matches} (--max-matches); more follow"
    ));
}

/// The progress bar of an input of known size, where one is drawn.
fn bar_for(size: Option<u64>, progress: Progress) -> Option<super::progress::Bar> {
    match (size, progress) {
        (Some(size), Progress::Forced) => Some(progress_bar(size, true)),
        (Some(size), Progress::OnTerminal) => Some(progress_bar(size, false)),
        _ => None,
    }
}

/// An input's names: in messages, in the output (its bytes as the system holds them, as
/// ripgrep prints them; magenta with colour), and before each match.
struct Names {
    label: String,
    shown: Vec<u8>,
    prefix: Vec<u8>,
}

impl Names {
    fn of(input: &Input, settings: &Settings) -> Names {
        let stdin = input.name == "-";
        let label = if stdin {
            "(standard input)".to_string()
        } else {
            input.name.clone()
        };
        let bytes: &[u8] = if stdin {
            label.as_bytes()
        } else {
            &input.bytes
        };
        let shown = if settings.color {
            [b"\x1b[35m", bytes, b"\x1b[0m"].concat()
        } else {
            bytes.to_vec()
        };
        let prefix = if settings.with_filename {
            [&shown[..], b":"].concat()
        } else {
            Vec::new()
        };
        Names {
            label,
            shown,
            prefix,
        }
    }
}
