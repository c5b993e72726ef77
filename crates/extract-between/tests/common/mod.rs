//! Shared test helpers: a driver that feeds the scanner under a given chunk plan (the random
//! cases, drawn so that matches are common, are `testing::Case`, shared with the binary's
//! tests).
#![allow(dead_code)]

use extract_between::testing::{Paths, scanner};
use extract_between::{Capped, Collect, Collected, Markers, ScanError, Scanner, Sink};

/// The scanner's view of a run: matches with positions, truncated, error.
#[derive(Debug, PartialEq, Eq)]
pub struct Scanned {
    pub matches: Vec<Collected>,
    pub truncated: bool,
    pub error: Option<ScanError>,
    /// The largest carry-over seen after any feed.
    pub max_buffered: usize,
}

/// Feeds `bytes` to a scanner in chunks cycling through `plan` (empty plan: one chunk). The
/// plan's length and the text's choose the scanner's paths (see `Paths::vary`), so that over a
/// property's cases every set of kernels this CPU runs is taken, each walk on and off, and
/// the prefetch hints both ways.
pub fn scan(markers: &Markers, bytes: &[u8], max_matches: u64, plan: &[usize]) -> Scanned {
    let paths = Paths::vary(plan.len() * 7 + bytes.len());
    scan_with(paths, markers, bytes, max_matches, plan)
}

/// [`scan`] with the given paths.
pub fn scan_with(
    paths: Paths,
    markers: &Markers,
    bytes: &[u8],
    max_matches: u64,
    plan: &[usize],
) -> Scanned {
    let mut scanner = scanner(markers, paths);
    let mut sink = Capped::new(Collect::default(), max_matches);
    let (error, max_buffered) = feed_all(&mut scanner, &mut sink, bytes, plan);
    Scanned {
        truncated: sink.truncated(),
        matches: sink.into_inner().matches,
        error,
        max_buffered,
    }
}

/// Feeds `bytes` to `scanner` and `sink` in chunks cycling through `plan` (empty plan: one
/// chunk), then finishes, stopping at a break or an error: returns the error, if any, and
/// the largest carry-over seen after any feed.
pub fn feed_all<S: Sink>(
    scanner: &mut Scanner,
    sink: &mut S,
    bytes: &[u8],
    plan: &[usize],
) -> (Option<ScanError>, usize) {
    let mut max_buffered = 0;
    let mut rest = bytes;
    let mut k = 0;
    while !rest.is_empty() {
        let size = if plan.is_empty() {
            rest.len()
        } else {
            plan[k % plan.len()].min(rest.len())
        };
        k += 1;
        let (chunk, tail) = rest.split_at(size);
        rest = tail;
        match scanner.feed(chunk, sink) {
            Ok(flow) => {
                max_buffered = max_buffered.max(scanner.buffered());
                if flow.is_break() {
                    break;
                }
            }
            Err(e) => return (Some(e), max_buffered),
        }
    }
    (scanner.finish(sink).err(), max_buffered)
}

pub fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}
