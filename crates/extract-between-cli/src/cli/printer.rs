//! The printer: the sink that writes each match of one input as it closes (plain, NUL,
//! JSON lines, `PATH:` prefixes), or counts it, and says why it stopped.

use super::config::Format;
use super::lines::Lines;
use core::ops::ControlFlow;
use extract_between::__private as json;
use extract_between::{Pos, ScanError, Sink};
use std::io::{self, Write};

/// Why streaming one input stopped with an error.
pub(super) enum InputFailure {
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
    pub(super) failure: Option<InputFailure>,
    /// Where the NUL byte of a binary input is: its matches are counted, not printed.
    binary_at: Option<u64>,
    /// With `-n`: the newlines near the chunk being scanned, and the open match's line.
    lines: Option<Lines>,
    line_no: u64,
    /// With several pairs (`--tag`): each pair's name, and the open match's pair.
    labels: &'a [Vec<u8>],
    tag: usize,
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
            lines: None,
            line_no: 0,
            labels: &[],
            tag: 0,
        }
    }

    /// Names each match's pair (`--tag`): `labels[tag]` and a tab before it, a `"tag"` field
    /// in JSON lines; the engine says each match's pair with [`Writer::tag`].
    pub(super) fn with_tags(mut self, labels: &'a [Vec<u8>]) -> Self {
        self.labels = labels;
        self
    }

    /// The pair of the match that opens next.
    pub(super) fn tag(&mut self, tag: usize) {
        self.tag = tag;
    }

    /// Writes text outside every match as it is (`--outside`).
    pub(super) fn outside(&mut self, text: &[u8]) -> ControlFlow<()> {
        let result = self.out.write_all(text);
        self.written(result)
    }

    /// Prints each match's line (`-n`); the reader then hands each chunk to [`Writer::chunk`].
    pub(super) fn with_line_numbers(mut self) -> Self {
        self.lines = Some(Lines::default());
        self
    }

    /// With `-n`: the chunk the scanner is fed next, which begins at byte `start`.
    pub(super) fn chunk(&mut self, start: u64, bytes: &[u8]) {
        if let Some(lines) = &mut self.lines {
            lines.chunk(start, bytes);
        }
    }

    /// Notes the line of a match whose start marker begins at `marker`.
    fn opened(&mut self, marker: Pos) {
        if let Some(lines) = &self.lines {
            self.line_no = lines.line_of(marker.byte);
        }
    }

    /// The input is binary (a NUL byte at `offset`): its matches are not printed, a notice
    /// is, as ripgrep does.
    pub(super) fn binary(&mut self, offset: u64) {
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
                if self.lines.is_some() {
                    write!(self.out, "{}:", self.line_no)?;
                }
                if let Some(label) = self.labels.get(self.tag) {
                    self.out.write_all(label)?;
                    self.out.write_all(b"\t")?;
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
                if self.lines.is_some() {
                    line.extend_from_slice(format!(",\"line\":{}", self.line_no).as_bytes());
                }
                if !self.labels.is_empty() {
                    line.extend_from_slice(format!(",\"tag\":{}", self.tag).as_bytes());
                }
                json::push_offsets(line, start, end);
                line.extend_from_slice(b"}\n");
                self.out.write_all(line)
            }
        }
    }

    /// After writing a match: counts it, or records why writing failed.
    fn written(&mut self, result: io::Result<()>) -> ControlFlow<()> {
        if let Err(e) = result {
            self.failure = Some(InputFailure::Write(e));
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
    fn open(&mut self, marker: Pos, content: Pos) -> ControlFlow<()> {
        self.opened(marker);
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
            self.failure = Some(InputFailure::MatchTooLarge(
                self.start,
                self.max_match_bytes,
            ));
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
            self.failure = Some(InputFailure::MatchTooLarge(open[1], self.max_match_bytes));
            return ControlFlow::Break(());
        }
        self.opened(open[0]);
        let result = self.write_match(content, open[1], close[0]);
        self.written(result)
    }

    fn utf16_offsets(&self) -> bool {
        // Only JSON lines print them; plain output skips the counting, a large share on CJK text.
        self.format == Format::Json
    }
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
