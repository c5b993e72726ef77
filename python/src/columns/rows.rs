//! The scan of a column's rows (each by the library's row API): on the calling thread for a small column, on a thread per
//! core for a large one, always with the GIL released. Each thread gathers its rows' matches
//! into flat buffers (a `Part`). While threads work, the calling thread wakes every few
//! milliseconds to let Python run its signal handlers, so Ctrl-C stops a long call; a
//! thread that panics fails the call instead of losing its rows.

use super::arrow::{Chunk, panic_message};
use extract_between::rows::{RowAnswer, RowError, RowScanner};
use pyo3::prelude::*;
use std::ops::Range;
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
#[derive(Clone)]
pub struct Stopped {
    /// The row within the column.
    pub row: usize,
    pub why: RowError,
}

/// Why a run ended without its parts.
pub enum ScanFailure {
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

/// What every thread shares: the column, the row scanner, and the flag that stops them.
struct Work<'a> {
    chunks: &'a [Chunk],
    rows: &'a RowScanner,
    /// The row at which a thread panics, for the test that a panic loses no row.
    panic_at: Option<usize>,
    stop: AtomicBool,
}

impl Work<'_> {
    /// The rows of one slice, each scanned by one row scanner; `None` when the run was
    /// stopped meanwhile.
    fn scan(&self, slice: &Slice) -> Option<Part> {
        let chunk = &self.chunks[slice.chunk];
        let mut rows = self.rows.clone();
        let mut spans = Vec::new();
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
            if self.panic_at == Some(slice.first + i) {
                panic!("the test's panic at row {}", slice.first + i);
            }
            let valid = match chunk.get(row) {
                None => false,
                Some(text) => {
                    spans.clear();
                    let stop = || !self.stop.load(Ordering::Relaxed);
                    match rows.scan_in_pieces(text, &mut spans, PIECE_BYTES, stop)? {
                        Ok(RowAnswer::Matches { .. }) => {
                            for span in &spans {
                                part.values.extend_from_slice(&text[span.clone()]);
                                part.value_ends.push(part.values.len());
                            }
                            true
                        }
                        Ok(RowAnswer::Null) => false,
                        Err(why) => {
                            part.stopped = Some(Stopped {
                                row: slice.first + i,
                                why,
                            });
                            return Some(part);
                        }
                    }
                }
            };
            part.row_ends.push(part.value_ends.len());
            part.valid.push(valid);
        }
        Some(part)
    }
}

/// Runs the row scanner over every row: one part per slice of rows, in order; `panic_at` is
/// the row at which a thread panics (for a test).
pub fn scan(
    py: Python<'_>,
    chunks: &[Chunk],
    rows: &RowScanner,
    panic_at: Option<usize>,
) -> Result<Vec<Part>, ScanFailure> {
    let bytes: usize = chunks.iter().map(Chunk::text_bytes).sum();
    let count: usize = chunks.iter().map(Chunk::len).sum();
    let work = Work {
        chunks,
        rows,
        panic_at,
        stop: AtomicBool::new(false),
    };
    if bytes < PARALLEL_BYTES {
        let slices = slices(chunks, count);
        return Ok(py.detach(|| slices.iter().filter_map(|s| work.scan(s)).collect()));
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let slices = slices(chunks, count.div_ceil(threads).max(1));
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
fn parallel(work: &Work<'_>, slices: &[Slice]) -> Result<Vec<Part>, ScanFailure> {
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
            (Some(e), _) => Err(ScanFailure::Interrupted(e)),
            (None, Some(message)) => Err(ScanFailure::Panicked(message)),
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
