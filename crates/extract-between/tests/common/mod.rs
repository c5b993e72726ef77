//! Shared test helpers: a driver that feeds the scanner under a given chunk plan (the random
//! cases, drawn so that matches are common, are `testing::Case`, shared with the binary's
//! tests).
#![allow(dead_code)]

use extract_between::testing::{Paths, feed_planned, scanner};
use extract_between::{Capped, Collect, Collected, Markers, ScanError};

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
    let (error, max_buffered) = feed_planned(&mut scanner, &mut sink, bytes, plan);
    Scanned {
        truncated: sink.truncated(),
        matches: sink.into_inner().matches,
        error,
        max_buffered,
    }
}

pub fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}
