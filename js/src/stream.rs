//! [`Stream`]: the resumable scanner behind JavaScript's `Scanner` and `extractStream`. Each
//! call scans the input buffer and leaves what it completed as records of five numbers
//! (kind, byte start, byte end, UTF-16 start, UTF-16 end) with the texts back to back in one
//! buffer, which JavaScript decodes with one `TextDecoder` call and cuts by the records'
//! UTF-16 lengths.

use crate::input;
use crate::problem::Problem;
use extract_between::batch::Batch;
use extract_between::events::{Event, EventSink};
use extract_between::{Markers, Pos, Scanner};
use wasm_bindgen::prelude::*;

/// Numbers per record.
pub const RECORD: usize = 5;

/// The most of one match's content a stream holds, whatever `maxMatchBytes` asks: the match
/// is held twice while handed out, and JavaScript decodes it into one string, which V8 keeps
/// under 2^29 code units; a limit past it (or none) would end in an allocation failure that
/// aborts the module.
pub const MAX_MATCH_BYTES: usize = 256 << 20;

/// [`MAX_MATCH_BYTES`], for JavaScript's types and messages.
///
/// ```
/// assert_eq!(extract_between_js::stream::max_match_bytes(), 268435456.0);
/// ```
#[wasm_bindgen(js_name = maxMatchBytesCeiling)]
pub fn max_match_bytes() -> f64 {
    MAX_MATCH_BYTES as f64
}

/// A record's kind: a whole match (its content's span), or an event (its span).
#[repr(u8)]
#[derive(Clone, Copy)]
enum Kind {
    Match = 0,
    Open = 1,
    Text = 2,
    Close = 3,
}

/// What a stream hands out: whole matches, gathered up to a limit each, or events.
enum Mode {
    Matches(Batch),
    Events(EventSink),
}

/// A resumable scanner for one marker pair.
///
/// ```
/// use extract_between_js::{input, stream::Stream};
/// let mut s = Stream::new("<a>", "</a>", false, 1024.0);
/// input::fill(b"x<a>one</a><a>t");
/// assert_eq!(s.feed(15), 1);
/// input::fill(b"wo</a>");
/// assert_eq!(s.feed(6), 1);
/// assert_eq!(s.text(), b"two");
/// assert_eq!(s.finish(), 0);
/// ```
#[wasm_bindgen]
pub struct Stream {
    scanner: Result<Scanner, Problem>,
    mode: Mode,
    records: Vec<f64>,
    text: Vec<u8>,
    problem: Option<Problem>,
    /// The limit asked for was none, or past [`MAX_MATCH_BYTES`].
    ceiling: bool,
}

#[wasm_bindgen]
impl Stream {
    /// A scanner of `start` … `end` handing out events (`events`) or whole matches of at
    /// most `limit` bytes of content (a negative `limit`: none of the caller's), never more
    /// than [`MAX_MATCH_BYTES`].
    #[wasm_bindgen(constructor)]
    pub fn new(start: &str, end: &str, events: bool, limit: f64) -> Stream {
        let ceiling = limit < 0.0 || limit > MAX_MATCH_BYTES as f64;
        let limit = if ceiling {
            MAX_MATCH_BYTES
        } else {
            limit as usize
        };
        Stream {
            scanner: Markers::new(start, end)
                .map(|m| Scanner::new(&m))
                .map_err(|e| Problem::marker(&e)),
            mode: if events {
                Mode::Events(EventSink::new())
            } else {
                Mode::Matches(Batch::new(limit))
            },
            records: Vec::new(),
            text: Vec::new(),
            problem: None,
            ceiling,
        }
    }

    /// Why the markers were refused, if they were.
    #[wasm_bindgen(getter)]
    pub fn invalid(&self) -> Option<Problem> {
        self.scanner.as_ref().err().cloned()
    }

    /// Scans the next `len` bytes of input (from the input buffer); answers the number of
    /// records completed, or -1 when the scan stopped there (the records before the error
    /// are still there; see [`problem`](Self::problem)).
    pub fn feed(&mut self, len: usize) -> i32 {
        self.step(Some(len))
    }

    /// Ends the input: answers the last records, or -1 (an unclosed start marker).
    pub fn finish(&mut self) -> i32 {
        self.step(None)
    }

    /// Numbers per record.
    #[wasm_bindgen(getter, js_name = recordSize)]
    pub fn record_size(&self) -> usize {
        RECORD
    }

    /// The address of the last call's records in WebAssembly memory.
    #[wasm_bindgen(js_name = recordsAt)]
    pub fn records_at(&self) -> usize {
        self.records.as_ptr() as usize
    }

    /// The number of records the last call left (also when it answered -1).
    #[wasm_bindgen(js_name = recordsLength)]
    pub fn records_len(&self) -> usize {
        self.records.len() / RECORD
    }

    /// The address of the last call's texts, back to back.
    #[wasm_bindgen(js_name = textAt)]
    pub fn text_at(&self) -> usize {
        self.text.as_ptr() as usize
    }

    /// The length in bytes of the last call's texts.
    #[wasm_bindgen(js_name = textLength)]
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    /// The last call's texts, back to back (a copy, for Rust callers and tests).
    pub fn text(&self) -> Vec<u8> {
        self.text.clone()
    }

    /// The last call's records (a copy, for Rust callers and tests).
    pub fn records(&self) -> Vec<f64> {
        self.records.clone()
    }

    /// Why the scan stopped, if it did.
    #[wasm_bindgen(getter)]
    pub fn problem(&self) -> Option<Problem> {
        self.problem.clone()
    }

    /// How much input the scanner has taken, in UTF-16 code units.
    #[wasm_bindgen(getter)]
    pub fn position(&self) -> f64 {
        self.scanner
            .as_ref()
            .map_or(0.0, |s| s.position().utf16 as f64)
    }

    /// Bytes the scanner holds between calls (a marker's start cut off by the chunk's end).
    #[wasm_bindgen(getter)]
    pub fn held(&self) -> usize {
        self.scanner.as_ref().map_or(0, Scanner::buffered)
    }
}

impl Stream {
    fn step(&mut self, len: Option<usize>) -> i32 {
        self.records.clear();
        self.text.clear();
        let scanner = match &mut self.scanner {
            Ok(scanner) => scanner,
            Err(problem) => {
                self.problem = Some(problem.clone());
                return -1;
            }
        };
        if self.problem.is_some() {
            return -1;
        }
        let outcome = match (&mut self.mode, len) {
            (Mode::Matches(batch), Some(len)) => {
                input::with(len, |chunk| scanner.feed(chunk, batch)).map(|_| ())
            }
            (Mode::Matches(batch), None) => scanner.finish(batch),
            (Mode::Events(sink), Some(len)) => {
                input::with(len, |chunk| scanner.feed(chunk, sink)).map(|_| ())
            }
            (Mode::Events(sink), None) => scanner.finish(sink),
        };
        match &mut self.mode {
            Mode::Matches(batch) => {
                while let Some(m) = batch.pop() {
                    push(&mut self.records, Kind::Match, m.start, m.end);
                    self.text.extend_from_slice(m.bytes);
                }
                if let Some(big) = batch.too_large() {
                    self.problem = Some(Problem::too_large(big, self.ceiling));
                }
            }
            Mode::Events(sink) => {
                for event in sink.drain() {
                    match event {
                        Event::Open { marker, content } => {
                            push(&mut self.records, Kind::Open, marker, content)
                        }
                        Event::Text { text, start, end } => {
                            push(&mut self.records, Kind::Text, start, end);
                            self.text.extend_from_slice(text.as_bytes());
                        }
                        Event::Close {
                            content_end,
                            marker_end,
                        } => push(&mut self.records, Kind::Close, content_end, marker_end),
                    }
                }
            }
        }
        if let Err(e) = outcome {
            self.problem = Some(Problem::scan(e));
        }
        if self.problem.is_some() {
            if let Mode::Matches(batch) = &mut self.mode {
                batch.release();
            }
            return -1;
        }
        i32::try_from(self.records.len() / RECORD).unwrap_or(i32::MAX)
    }
}

/// Appends one record.
fn push(records: &mut Vec<f64>, kind: Kind, from: Pos, to: Pos) {
    records.extend([
        f64::from(kind as u8),
        from.byte as f64,
        to.byte as f64,
        from.utf16 as f64,
        to.utf16 as f64,
    ]);
}
