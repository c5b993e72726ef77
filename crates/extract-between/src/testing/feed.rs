//! Feeding input split by a chunk plan, the way the tests and the fuzz targets split it: a
//! loop over a scanner, and an `AsyncRead` that returns the planned number of bytes per read.

use crate::{ScanError, Scanner, Sink};

/// The size of the `k`th chunk of `rest` under `plan`, which cycles (empty: one chunk).
fn planned(plan: &[usize], k: usize, rest: usize) -> usize {
    if plan.is_empty() {
        rest
    } else {
        plan[k % plan.len()].min(rest)
    }
}

/// Feeds `bytes` to `scanner` and `sink` in chunks cycling through `plan` (empty plan: one
/// chunk), then finishes, stopping at a break or an error: returns the error, if any, and
/// the largest carry-over seen after any feed.
///
/// ```
/// use extract_between::testing::feed_planned;
/// use extract_between::{Collect, Markers, Scanner};
/// let mut scanner = Scanner::new(&Markers::new("<<", ">>").unwrap());
/// let mut found = Collect::default();
/// let (error, carried) = feed_planned(&mut scanner, &mut found, b"x<<a>>y", &[1, 2]);
/// assert!(error.is_none() && carried <= 1);
/// assert_eq!(found.matches[0].text, "a");
/// ```
pub fn feed_planned<S: Sink>(
    scanner: &mut Scanner,
    sink: &mut S,
    bytes: &[u8],
    plan: &[usize],
) -> (Option<ScanError>, usize) {
    let mut max_buffered = 0;
    let mut rest = bytes;
    let mut k = 0;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(planned(plan, k, rest.len()));
        k += 1;
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

/// A reader that returns at most `plan[k]` bytes on its `k`th read (cycling; an empty plan
/// returns all it can), truly splitting the input where `BufReader` would not.
#[cfg(feature = "stream")]
#[derive(Debug)]
pub struct Trickle {
    data: Vec<u8>,
    at: usize,
    plan: Vec<usize>,
    k: usize,
}

#[cfg(feature = "stream")]
impl Trickle {
    /// A reader of `data` under `plan`.
    pub fn new(data: Vec<u8>, plan: Vec<usize>) -> Trickle {
        Trickle {
            data,
            at: 0,
            plan,
            k: 0,
        }
    }
}

#[cfg(feature = "stream")]
impl tokio::io::AsyncRead for Trickle {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let n = planned(&self.plan, self.k, self.data.len() - self.at).min(buf.remaining());
        self.k += 1;
        let at = self.at;
        buf.put_slice(&self.data[at..at + n]);
        self.at += n;
        std::task::Poll::Ready(Ok(()))
    }
}
