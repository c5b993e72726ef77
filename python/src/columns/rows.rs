//! The scan of a column's rows: on the calling thread for a small column, on a thread per
//! core for a large one, always with the GIL released. Each thread gathers its rows' matches
//! into flat buffers (a `Part`). While threads work, the calling thread wakes every few
//! milliseconds to let Python run its signal handlers, so Ctrl-C stops a long call; a
//! thread that panics fails the call instead of losing its rows.

use super::Limits;
use super::arrow::{Chunk, panic_message};
use crate::input::OnUnclosed;
use extract_between::{Capped, Pos, ScanError, Scanner, Sink};
use pyo3::prelude::*;
use std::ops::{ControlFlow, Range};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// Below this many text bytes a column is scanned on the calling thread: starting threads
/// would cost more than they save, and the call ends before a signal needs handling.
const PARALLEL_BYTES: usize = 1 << 20;
/// A row's text is fed in pieces of this size, so a stop is seen inside a long row too.
const PIECE_BYTES: usize = 4 << 20;
/// How often the calling thread lets Python handle signals while the threads work.
const SIGNAL_POLL: Duration = Duration::from_millis(20);

/// The matches of a run of rows, gathered flat: contents back to back, where each ends, how
/// many matches each row has so far, which rows are null, and the first row that stopped the
/// column.
#[derive(Default)]
pub struct Part {
    pub values: Vec<u8>,
    pub value_ends: Vec<usize>,
    pub row_ends: Vec<usize>,
    pub valid: Vec<bool>,
    pub stopped: Option<Stopped>,
}

/// A row that stopped the column: where it is and why.
#[derive(Clone, Copy)]
pub struct Stopped {
    /// The row within the column.
    pub row: usize,
    /// Its chunk and its row within it.
    pub at: (usize, usize),
    pub why: Why,
}

/// Why a row stopped the column: an unclosed start marker (with `on_unclosed="raise"`), or
/// bytes that are not UTF-8 (which a producer of Arrow strings must not hand over).
#[derive(Clone, Copy)]
pub enum Why {
    Unclosed(Pos),
    InvalidUtf8(u64),
}

/// Why a run ended without its parts.
pub enum Failure {
    /// Python raised while the threads worked (a `KeyboardInterrupt`).
    Interrupted(PyErr),
    /// A thread panicked: its message.
    Panicked(String),
}

/// One unit of work: rows `rows` of chunk `chunk`, which start at row `first` of the column.
struct Slice {
    chunk: usize,
    rows: Range<usize>,
    first: usize,
}

/// Appends a row's matches to a part's buffers (no UTF-16 counting: rows report bytes).
struct RowSink<'p> {
    values: &'p mut Vec<u8>,
    value_ends: &'p mut Vec<usize>,
}

impl Sink for RowSink<'_> {
    fn open(&mut self, _marker: Pos, _content: Pos) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
        self.values.extend_from_slice(fragment);
        ControlFlow::Continue(())
    }

    fn close(&mut self, _content_end: Pos, _marker_end: Pos) -> ControlFlow<()> {
        self.value_ends.push(self.values.len());
        ControlFlow::Continue(())
    }

    fn matched(&mut self, _open: [Pos; 2], content: &[u8], _close: [Pos; 2]) -> ControlFlow<()> {
        self.values.extend_from_slice(content);
        self.value_ends.push(self.values.len());
        ControlFlow::Continue(())
    }

    fn utf16_offsets(&self) -> bool {
        false
    }
}

/// What every thread shares: the column, the scan's settings, and the flag that stops them.
struct Work<'a> {
    chunks: &'a [Chunk],
    scanner: &'a Scanner,
    limits: Limits,
    stop: AtomicBool,
}

impl Work<'_> {
    /// The rows of one slice, each scanned by one scanner rewound between rows; `None` when
    /// the run was stopped meanwhile.
    fn scan(&self, slice: &Slice) -> Option<Part> {
        let chunk = &self.chunks[slice.chunk];
        let mut scanner = self.scanner.clone();
        // The matches of a row never outgrow its text: reserving the slice's text bytes means
        // no buffer is moved while it fills, and pages never written are never touched.
        let text_bytes: usize = slice
            .rows
            .clone()
            .filter_map(|r| chunk.get(r))
            .map(<[u8]>::len)
            .sum();
        let mut part = Part {
            values: Vec::with_capacity(text_bytes),
            row_ends: Vec::with_capacity(slice.rows.len()),
            valid: Vec::with_capacity(slice.rows.len()),
            ..Part::default()
        };
        for (i, row) in slice.rows.clone().enumerate() {
            if self.stop.load(Ordering::Relaxed) {
                return None;
            }
            if self.limits.panic_at == Some(slice.first + i) {
                panic!("the test's panic at row {}", slice.first + i);
            }
            let Some(text) = chunk.get(row) else {
                part.row_ends.push(part.value_ends.len());
                part.valid.push(false);
                continue;
            };
            let valid = match self.row(&mut scanner, text, &mut part)? {
                Ok(valid) => valid,
                Err(why) => {
                    part.stopped = Some(Stopped {
                        row: slice.first + i,
                        at: (slice.chunk, row),
                        why,
                    });
                    return Some(part);
                }
            };
            part.row_ends.push(part.value_ends.len());
            part.valid.push(valid);
        }
        Some(part)
    }

    /// One row's matches appended to `part`: whether the row is valid, or why it stops the
    /// column; `None` when the run was stopped meanwhile.
    fn row(
        &self,
        scanner: &mut Scanner,
        text: &[u8],
        part: &mut Part,
    ) -> Option<Result<bool, Why>> {
        let (values, matches) = (part.values.len(), part.value_ends.len());
        scanner.reset();
        let outcome = {
            let mut sink = Capped::new(
                RowSink {
                    values: &mut part.values,
                    value_ends: &mut part.value_ends,
                },
                self.limits.cap,
            );
            let mut fed = Ok(ControlFlow::Continue(()));
            for piece in text.chunks(PIECE_BYTES) {
                if text.len() > PIECE_BYTES && self.stop.load(Ordering::Relaxed) {
                    return None;
                }
                fed = scanner.feed(piece, &mut sink);
                if !matches!(fed, Ok(ControlFlow::Continue(()))) {
                    break;
                }
            }
            fed.and_then(|_| scanner.finish(&mut sink))
        };
        // Content of a match left open (an unclosed start) was streamed in: drop it.
        let closed = part
            .value_ends
            .last()
            .copied()
            .filter(|_| part.value_ends.len() > matches);
        part.values.truncate(closed.unwrap_or(values));
        Some(match row_end(outcome, self.limits.on_unclosed, text) {
            RowEnd::Matches => Ok(true),
            RowEnd::Null => {
                part.values.truncate(values);
                part.value_ends.truncate(matches);
                Ok(false)
            }
            RowEnd::Stop(why) => Err(why),
        })
    }
}

/// What a scanned row answers.
pub enum RowEnd {
    /// The matches it closed.
    Matches,
    /// Null.
    Null,
    /// Nothing: it stops the column.
    Stop(Why),
}

/// How the scan of row `text` ended, read under `on_unclosed`: the card's outcome for one row
/// of any column function.
pub fn row_end(outcome: Result<(), ScanError>, on_unclosed: OnUnclosed, text: &[u8]) -> RowEnd {
    match (outcome, on_unclosed) {
        (Ok(()), _) | (Err(ScanError::Unclosed { .. }), OnUnclosed::Partial) => RowEnd::Matches,
        (Err(ScanError::Unclosed { .. }), OnUnclosed::Null) => RowEnd::Null,
        (Err(ScanError::Unclosed { marker }), OnUnclosed::Raise) => {
            // The scan validated the text before the marker; rows count no UTF-16 units on
            // the way, so the error's offset is counted here, once.
            let before = text.get(..marker.byte as usize).unwrap_or_default();
            let utf16 = std::str::from_utf8(before).map_or(0, |s| s.encode_utf16().count());
            RowEnd::Stop(Why::Unclosed(Pos {
                byte: marker.byte,
                utf16: utf16 as u64,
            }))
        }
        (Err(ScanError::InvalidUtf8 { offset, .. }), _) => RowEnd::Stop(Why::InvalidUtf8(offset)),
    }
}

/// Runs the scanner over every row: one part per slice of rows, in order.
pub fn run(
    py: Python<'_>,
    chunks: &[Chunk],
    scanner: &Scanner,
    limits: Limits,
) -> Result<Vec<Part>, Failure> {
    let bytes: usize = chunks.iter().map(Chunk::text_bytes).sum();
    let rows: usize = chunks.iter().map(Chunk::len).sum();
    let work = Work {
        chunks,
        scanner,
        limits,
        stop: AtomicBool::new(false),
    };
    if bytes < PARALLEL_BYTES {
        let slices = slices(chunks, rows);
        return Ok(py.detach(|| slices.iter().filter_map(|s| work.scan(s)).collect()));
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let slices = slices(chunks, rows.div_ceil(threads).max(1));
    py.detach(|| parallel(&work, &slices))
}

/// Slices of at most `per` rows each, never crossing a chunk.
fn slices(chunks: &[Chunk], per: usize) -> Vec<Slice> {
    let mut slices = Vec::new();
    let mut first = 0;
    for (chunk, strings) in chunks.iter().enumerate() {
        let mut at = 0;
        while at < strings.len() {
            let end = (at + per.max(1)).min(strings.len());
            slices.push(Slice {
                chunk,
                rows: at..end,
                first,
            });
            first += end - at;
            at = end;
        }
    }
    slices
}

/// A thread per slice; the calling thread handles signals until every thread is done.
fn parallel(work: &Work<'_>, slices: &[Slice]) -> Result<Vec<Part>, Failure> {
    std::thread::scope(|scope| {
        let (done, finished) = mpsc::channel::<()>();
        let handles: Vec<_> = slices
            .iter()
            .map(|slice| {
                let done = done.clone();
                scope.spawn(move || {
                    // Sent when the thread ends, panic or not.
                    let _done = Signal(done);
                    work.scan(slice)
                })
            })
            .collect();
        drop(done);
        let mut interrupted = None;
        // Every sender dropped: every thread has ended.
        while let Err(mpsc::RecvTimeoutError::Timeout) | Ok(()) = finished.recv_timeout(SIGNAL_POLL)
        {
            if interrupted.is_none()
                && let Err(e) = Python::attach(|py| py.check_signals())
            {
                work.stop.store(true, Ordering::Relaxed);
                interrupted = Some(e);
            }
        }
        let mut parts = Vec::with_capacity(handles.len());
        let mut panicked = None;
        for handle in handles {
            match handle.join() {
                Ok(Some(part)) => parts.push(part),
                Ok(None) => {}
                Err(panic) => panicked = Some(panic_message(panic.as_ref())),
            }
        }
        match (interrupted, panicked) {
            (Some(e), _) => Err(Failure::Interrupted(e)),
            (None, Some(message)) => Err(Failure::Panicked(message)),
            (None, None) => Ok(parts),
        }
    })
}

/// Drops into a message on its channel: a thread's end, however it ends.
struct Signal(mpsc::Sender<()>);

impl Drop for Signal {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}
