//! The ASCII fast path: validation and the search for an ASCII marker in one pass over
//! 64-byte blocks, with a set of [`AsciiKernels`].

use super::*;
use crate::kernels::{AsciiKernels, Job, Kernels, PREFETCH_AHEAD, prefetch};

/// The ASCII walk over one slice with one way to seek, run by the kernels' dispatch: each way
/// gets its own entry function (in one, the other's registers spilled the dense loop's).
struct AsciiWalk<S: ?Sized, F> {
    seek: F,
    sink: core::marker::PhantomData<fn(&mut S)>,
}

impl<S: Sink + ?Sized, F: Seek> Job for AsciiWalk<S, F> {
    type State = Scanner;
    type Sink = S;
    type Out = Walked;
    #[inline(always)]
    fn run<K: Kernels>(self, scanner: &mut Scanner, data: &[u8], sink: &mut S, k: K) -> Walked {
        scanner.ascii_events(k.ascii(), data, sink, self.seek)
    }
}

impl<S: ?Sized, F> AsciiWalk<S, F> {
    fn new(seek: F) -> Self {
        AsciiWalk {
            seek,
            sink: core::marker::PhantomData,
        }
    }
}

impl Scanner {
    /// The fast path for ASCII markers over ASCII text: validates and finds candidates in one
    /// pass over 64-byte blocks, reporting events as [`Scanner::scan`] would. It stops at the
    /// first non-ASCII byte, where less than a block and a marker are left, or when the
    /// marker sought next is not ASCII, and returns how much of `data` it decided: the caller
    /// scans the rest. It holds no marker prefix: a candidate near the end is left to the
    /// general path, which can hold one.
    pub(super) fn scan_ascii<S: Sink + ?Sized>(&mut self, data: &[u8], sink: &mut S) -> Walked {
        let isa = self.paths.isa;
        // Two one-byte markers are read without copying their probes first: that copy was
        // about a quarter of the per-chunk work outside the walk on text without markers.
        let byte = |n: &Needle| match &n.probe {
            Some(p) if p.ascii && p.len == 1 => Some(p.bytes[0]),
            _ => None,
        };
        if let (Some(s), Some(e)) = (byte(&self.start), byte(&self.end)) {
            let seek = OneBytes {
                blocks: Blocks::default(),
                bytes: [s, e],
            };
            return isa.run(AsciiWalk::new(seek), self, data, sink);
        }
        // The marker sought in each state, read once (`None`: the general path's job).
        let ascii = |p: Option<Probe>| p.filter(|p| p.ascii);
        let seek = Probes {
            probes: [ascii(self.start.probe), ascii(self.end.probe)],
            hint: self.paths.hints,
        };
        isa.run(AsciiWalk::new(seek), self, data, sink)
    }

    /// The event loop of the ASCII walk: each marker `seek` finds is reported, until it
    /// hands over.
    #[inline(always)]
    fn ascii_events<K: AsciiKernels, S: Sink + ?Sized>(
        &mut self,
        kernels: K,
        data: &[u8],
        sink: &mut S,
        mut seek: impl Seek,
    ) -> Walked {
        let mut at = Counter::new(self.scanned, Units::of(sink, true));
        let lens = [self.start.bytes().len(), self.end.bytes().len()];
        let mut run = Run::new(self.state == State::Inside);
        // `i`: where the search resumes.
        let mut i = 0;
        let flow = loop {
            let q = match seek.next(kernels, data, i, run.inside) {
                Ok(q) => q,
                Err(x) => {
                    i = x;
                    break ControlFlow::Continue(());
                }
            };
            i = q + lens[usize::from(run.inside)];
            let (begin, end) = (at.pos(data, q), at.pos(data, i));
            let flow = self.report(data, sink, [q, i], [begin, end], &mut run);
            if flow.is_break() {
                break flow;
            }
        };
        let end = at.pos(data, i);
        self.hand_over(data, sink, (i, end), flow, run)
    }
}

/// How the ASCII walk finds the marker sought from `data[i]` (`inside`: the end marker):
/// `Ok(q)` where it occurs, `Err(x)` to hand over at `x`. A trait rather than a closure: a
/// closure is compiled without the entry function's instructions, so the kernels it calls
/// are not inlined into it (no closure in the walks calls a kernel).
trait Seek {
    fn next<K: AsciiKernels>(&mut self, k: K, data: &[u8], i: usize, inside: bool) -> Found;
}

/// Where a seek ends: `Ok(q)`, the marker at `q`; `Err(x)`, hand over at `x`.
type Found = Result<usize, usize>;

/// Two one-byte markers: each block is tested once per marker, however many events it holds.
struct OneBytes {
    blocks: Blocks,
    bytes: [u8; 2],
}

impl Seek for OneBytes {
    #[inline(always)]
    fn next<K: AsciiKernels>(&mut self, k: K, data: &[u8], i: usize, inside: bool) -> Found {
        // Selected, not indexed by `inside`: an indexed array stays in memory, a load per
        // event on dense text.
        let byte = if inside { self.bytes[1] } else { self.bytes[0] };
        self.blocks.next(k, data, i, usize::from(inside), byte)
    }
}

/// Markers probed by two bytes (see [`Probe`]); `None`: not ASCII, the general path's.
struct Probes {
    probes: [Option<Probe>; 2],
    hint: bool,
}

impl Seek for Probes {
    #[inline(always)]
    fn next<K: AsciiKernels>(&mut self, k: K, data: &[u8], i: usize, inside: bool) -> Found {
        let probe = if inside {
            &self.probes[1]
        } else {
            &self.probes[0]
        };
        match probe {
            Some(probe) => find(k, data, i, probe, self.hint),
            None => Err(i),
        }
    }
}

/// A walk over 64-byte blocks for one-byte markers: a block's test for each marker is made
/// once, when first needed, and reused for every event in the block.
#[derive(Default)]
struct Blocks {
    /// Where the current block begins.
    base: usize,
    /// Its test for each marker (start, end), once made.
    tests: [Option<u64>; 2],
}

impl Blocks {
    /// The next `byte` (marker `k`: 0 start, 1 end) or non-ASCII byte at or after `data[i]`:
    /// `Ok(q)` for the byte, `Err(x)` to hand over at `x` (not ASCII, or less than a block
    /// left). Calls come with `i` never decreasing.
    #[inline(always)]
    fn next<K: AsciiKernels>(
        &mut self,
        kernels: K,
        data: &[u8],
        i: usize,
        k: usize,
        byte: u8,
    ) -> Found {
        if i >= self.base + 64 {
            // Past the block (an event at its last byte): the next one starts here.
            self.base = i;
            self.tests = [None, None];
            prefetch(data, i + PREFETCH_AHEAD);
        }
        let block = |base: usize| -> Option<&[u8; 64]> {
            data.get(base..base + 64)
                .map(|b| b.try_into().unwrap_or(&[0; 64]))
        };
        let Some(current) = block(self.base) else {
            return last_block(kernels, data, i.max(self.base), byte);
        };
        let stops = match self.tests[k] {
            Some(stops) => stops,
            None => *self.tests[k].insert(kernels.stops64(current, byte)),
        };
        // Bits for the bytes before `i` are decided already (`i` is in this block).
        let mut ahead = stops & (!0u64 << (i - self.base));
        // Nothing there: the following blocks, for this byte only, in a tight loop.
        while ahead == 0 {
            self.base += 64;
            self.tests = [None, None];
            prefetch(data, self.base + PREFETCH_AHEAD);
            let Some(next) = block(self.base) else {
                return last_block(kernels, data, self.base, byte);
            };
            ahead = kernels.stops64(next, byte);
            if ahead == 0 {
                // A quiet block: maybe a long quiet stretch, skipped two blocks per test.
                // (Not before one quiet block: on dense text the second block would mostly
                // be tested in vain.) The pairs start on a 64-byte boundary of memory, a
                // little back into the quiet block, so that no load straddles cache lines.
                let back = (data.as_ptr() as usize + self.base) % 64;
                let mut next = self.base + 64 - back;
                while let Some(two) = data.get(next..next + 128) {
                    if !kernels.quiet128(two.try_into().unwrap_or(&[0; 128]), byte) {
                        break;
                    }
                    next += 128;
                }
                // The loop above resumes at `next`.
                self.base = next - 64;
            }
        }
        // A new block's test is its whole mask: keep it for the other marker's turn too.
        self.tests[k].get_or_insert(ahead);
        let q = self.base + ahead.trailing_zeros() as usize;
        if data[q] == byte { Ok(q) } else { Err(q) }
    }
}

/// The search for the ASCII marker of `probe` from `data[i]`: `Ok(q)` where it occurs,
/// `Err(x)` to hand over at `x` (a non-ASCII byte, or less than a block and a marker left).
/// Every byte before either is ASCII and no occurrence starts before it. `hint`: whether
/// the walk asks for data ahead (see [`crate::kernels::streams_without_hints`]).
#[inline(always)]
fn find<K: AsciiKernels>(
    kernels: K,
    data: &[u8],
    mut i: usize,
    probe: &Probe,
    hint: bool,
) -> Found {
    let needle = probe.needle();
    if needle.len() == 1 {
        // The block walk, starting afresh at `i`, for this one marker.
        let mut blocks = Blocks {
            base: i,
            tests: [None, None],
        };
        return blocks.next(kernels, data, i, 0, needle[0]);
    }
    let reach = needle.len() - 1;
    // A block is only tested when a marker starting in it lies wholly in `data`.
    while let Some(window) = data.get(i..i + 64 + reach) {
        if hint {
            prefetch(data, i + PREFETCH_AHEAD);
        }
        let found = pair_stops(kernels, window, probe);
        if found == 0 {
            // A quiet block: maybe a long quiet stretch, skipped two blocks per test, from a
            // 64-byte boundary of memory a little back into the quiet block (so that the
            // blocks' own loads do not straddle cache lines).
            i += 64 - (data.as_ptr() as usize + i) % 64;
            i = if hint {
                skip_quiet::<K, true>(kernels, data, i, reach, probe)
            } else {
                skip_quiet::<K, false>(kernels, data, i, reach, probe)
            };
            continue;
        }
        if let Some(found) = resolve(data, needle, i, found) {
            return found;
        }
        i += 64;
    }
    // Less than a window left: the window that ends with `data` instead, its bits before
    // `i` (decided) masked off, so that the general path is left only the bytes where a
    // marker would not fit (see [`last_block`]).
    match data.len().checked_sub(64 + reach) {
        Some(w) if i > w && i < w + 64 => {
            let found = pair_stops(kernels, &data[w..], probe) & (!0u64 << (i - w));
            resolve(data, needle, w, found).unwrap_or(Err(w + 64))
        }
        _ => Err(i),
    }
}

/// The quiet walk of [`find`]: from `i`, the first multiple of 128 bytes on whose 128 bytes
/// (and the `reach` after them) [`AsciiKernels::quiet128_pair`] answers `false`, or that is
/// not wholly in `data`. `HINT`: whether it asks for data ahead (a constant: the loop is
/// the hottest on sparse text).
#[inline(always)]
fn skip_quiet<K: AsciiKernels, const HINT: bool>(
    kernels: K,
    data: &[u8],
    mut i: usize,
    reach: usize,
    probe: &Probe,
) -> usize {
    let ((i1, b1), (i2, b2)) = (probe.first, probe.second);
    while let Some(window) = data.get(i..i + 128 + reach) {
        if HINT {
            prefetch(data, i + PREFETCH_AHEAD);
            prefetch(data, i + PREFETCH_AHEAD + 64);
        }
        let two = |at: usize| -> &[u8; 128] { window[at..][..128].try_into().unwrap_or(&[0; 128]) };
        if !kernels.quiet128_pair(two(0), [two(i1), two(i2)], [b1, b2]) {
            break;
        }
        i += 128;
    }
    i
}

/// [`AsciiKernels::stops64_pair`] of the block at the start of `window` (at least a block
/// and a marker long) for the marker of `probe`.
#[inline(always)]
fn pair_stops<K: AsciiKernels>(kernels: K, window: &[u8], probe: &Probe) -> u64 {
    let ((i1, b1), (i2, b2)) = (probe.first, probe.second);
    let block = |at: usize| -> &[u8; 64] { window[at..][..64].try_into().unwrap_or(&[0; 64]) };
    kernels.stops64_pair(block(0), [block(i1), block(i2)], [b1, b2])
}

/// The first stop of a block at `data[base]` that decides [`find`]: a byte that is not ASCII
/// (`Err`) or an occurrence of `needle` (`Ok`); `None` when every stop was a candidate that
/// did not match.
#[inline(always)]
fn resolve(data: &[u8], needle: &[u8], base: usize, mut stops: u64) -> Option<Found> {
    while stops != 0 {
        let q = base + stops.trailing_zeros() as usize;
        if data[q] >= 0x80 {
            return Some(Err(q));
        }
        if data.get(q..q + needle.len()) == Some(needle) {
            return Some(Ok(q));
        }
        stops &= stops - 1;
    }
    None
}

/// [`Blocks::next`] where less than a block is left after `i`: tests the block that ends
/// with `data` instead, its bits before `i` (decided) masked off. Without it the last bytes
/// of every chunk went to the general path, whose set-up (a `memmem` search, a separate
/// validation) cost more than a block test.
#[inline(always)]
fn last_block<K: AsciiKernels>(kernels: K, data: &[u8], i: usize, byte: u8) -> Found {
    let Some(w) = data.len().checked_sub(64) else {
        return Err(i);
    };
    let last: &[u8; 64] = data[w..].try_into().unwrap_or(&[0; 64]);
    if i <= w || i >= data.len() {
        // (`i <= w` does not happen: there would be a whole block after `i`.)
        return Err(i);
    }
    let stops = kernels.stops64(last, byte) & (!0u64 << (i - w));
    if stops == 0 {
        return Err(data.len());
    }
    let q = w + stops.trailing_zeros() as usize;
    if data[q] == byte { Ok(q) } else { Err(q) }
}
