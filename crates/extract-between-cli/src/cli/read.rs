//! Reading one input: the read loop that feeds the scanner (the byte order mark sniffed, a
//! binary input noticed), the search of one input the run counts, and how a failure is
//! reported. The sink that writes the matches is `printer`'s `Writer`.

use super::config::{Format, Pattern, Progress, Settings};
use super::encoding::Decoding;
use super::engine::Engine;
use super::input::Input;
use super::printer::{InputFailure, Writer};
use super::progress::progress_bar;
use super::stdio::complain;
use core::ops::ControlFlow;
use extract_between::{Capped, Pos, ScanError};
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

/// The read size of the streaming mode.
pub(super) const READ_CHUNK: usize = 64 * 1024;

pub(super) fn report(label: &str, failure: InputFailure, utf16: bool) {
    // Without --json-lines UTF-16 offsets are not counted; say only what is known.
    let at = |p: Pos| {
        if utf16 {
            format!("byte offset {} (UTF-16 offset {})", p.byte, p.utf16)
        } else {
            format!("byte offset {}", p.byte)
        }
    };
    match failure {
        InputFailure::Scan(ScanError::Unclosed { marker }) => {
            complain(format_args!(
                "{label}: unclosed start marker at {}",
                at(marker)
            ));
        }
        InputFailure::Scan(e @ ScanError::InvalidUtf8 { .. }) => complain(format_args!(
            "{label}: {e} (text in another encoding? name it with -E, as -E latin1 or -E shift_jis)"
        )),
        InputFailure::MatchTooLarge(p, max) => complain(format_args!(
            "{label}: match_too_large: the match starting at {} is longer than {max} bytes (--max-match-bytes)",
            at(p)
        )),
        InputFailure::Read(e) => complain(format_args!("{label}: read error: {e}")),
        InputFailure::Write(e) => complain(format_args!("writing output: {e}")),
    }
}

/// Streams one input into the writer, decoded as `decoding` says; the first failure ends it (after every match
/// completed before it was written). An input whose first block holds a NUL byte is not
/// searched with [`Binary::Skip`] (`Ok(false)`), and searched for a notice instead of its
/// matches with [`Binary::Search`].
pub(super) fn run_one<W: Write>(
    pattern: &Pattern,
    reader: &mut dyn Read,
    buf: &mut [u8],
    sink: &mut Capped<&mut Writer<'_, W>>,
    mut bar: Option<&mut super::progress::Bar>,
    (binary, decoding): (Binary, Decoding),
) -> Result<bool, InputFailure> {
    let mut scanner = Engine::new(pattern);
    let mut first = true;
    // The bytes fed so far: the scanner's own position leaves out a character cut at the end
    // of the last read, which it holds until the rest arrives.
    let mut fed: u64 = 0;
    loop {
        let mut n = match reader.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(InputFailure::Read(e)),
        };
        // The first bytes are read until a byte order mark is whole or ruled out.
        while first && decoding.wants_more(&buf[..n]) {
            match reader.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(more) => n += more,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(InputFailure::Read(e)),
            }
        }
        if first && let Some(mut decoded) = decoding.reader(&buf[..n], reader) {
            // The input read again through its decoder, from its first byte.
            return run_one(
                pattern,
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
        sink.get_mut().chunk(fed, &buf[..n]);
        fed += n as u64;
        match scanner.feed(&buf[..n], sink) {
            Ok(ControlFlow::Continue(())) => {}
            // Either the cap and truncation are known (stop reading: done), or the writer
            // recorded a failure.
            Ok(ControlFlow::Break(())) => {
                return sink.get_mut().failure.take().map_or(Ok(true), Err);
            }
            Err(e) => return Err(InputFailure::Scan(e)),
        }
    }
    scanner
        .finish(sink)
        .map_err(InputFailure::Scan)
        .map(|()| true)
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
    if settings.line_number {
        writer = writer.with_line_numbers();
    }
    if let Pattern::Tags { labels, .. } = &settings.pattern {
        writer = writer.with_tags(labels);
    }
    let mut sink = Capped::new(&mut writer, settings.max_matches);
    let mut reader = input.reader;
    let result = run_one(
        &settings.pattern,
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
        Err(InputFailure::Write(e)) => searched.write_error = Some(e),
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
    result: Result<bool, InputFailure>,
    shown: &[u8],
    settings: &Settings,
) -> Result<bool, InputFailure> {
    match result {
        done @ (Ok(true)
        | Err(
            InputFailure::Scan(_) | InputFailure::MatchTooLarge(..) | InputFailure::Read(_),
        )) => writer
            .summary(shown, settings.null_names, settings.include_zero)
            .map_err(InputFailure::Write)
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
