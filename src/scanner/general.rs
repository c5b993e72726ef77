//! The general path: `memmem` plus the resume across chunks — the reference decision for
//! every input, and the only path on targets without vector instructions — with the block
//! search the ASCII path shares and the handling of a chunk's tail.

use super::*;

impl Scanner {
    /// Takes what the ASCII path leaves at the end of a chunk when it is ASCII and shorter
    /// than the marker sought: no occurrence can end in it, so it only decides how much of a
    /// prefix of the marker to hold, as the general path would after a search that fails.
    /// `None` when `data` is not such a tail. (The general path's set-up — an ASCII check
    /// of the whole slice, a `memmem` call, a position counter — was ~300 instructions a
    /// chunk for these few bytes.)
    pub(super) fn hold_ascii_tail<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> Option<ControlFlow<()>> {
        let inside = self.state == State::Inside;
        let needle = if inside { &self.end } else { &self.start };
        if self.held != 0 || data.len() >= needle.bytes().len() || !data.is_ascii() {
            return None;
        }
        if self.hold_tail(data, sink).is_break() {
            self.state = State::Stopped;
            return Some(ControlFlow::Break(()));
        }
        self.scanned = Counter::new(self.scanned, Units::of(sink, true)).pos(data, data.len());
        Some(ControlFlow::Continue(()))
    }

    /// After a search for the marker sought found nothing in `data`: holds the longest
    /// suffix of `data` that begins the marker and delivers the rest as content inside a
    /// match (the general path's end of a slice, and [`Scanner::hold_ascii_tail`]'s).
    pub(super) fn hold_tail<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> ControlFlow<()> {
        let inside = self.state == State::Inside;
        let needle = if inside { &self.end } else { &self.start };
        let held = needle.tail_prefix(data);
        let decided = &data[..data.len() - held];
        if inside && !decided.is_empty() {
            sink.content(decided)?;
        }
        self.held = held;
        ControlFlow::Continue(())
    }

    /// Scans one whole character, cut by the last chunk boundary. With nothing held, it can
    /// only matter to the needle sought if that needle begins with it; otherwise it is passed
    /// (as content, inside a match) without the general path's setup (a `memmem` search, a
    /// count of units), which cost more than the character.
    pub(super) fn pass_character<S: Sink + ?Sized>(
        &mut self,
        character: &[u8],
        sink: &mut S,
    ) -> ControlFlow<()> {
        let inside = self.state == State::Inside;
        let needle = if inside { &self.end } else { &self.start };
        if self.held > 0 || needle.bytes().starts_with(character) {
            return self.scan(character, false, sink);
        }
        if inside && sink.content(character).is_break() {
            self.state = State::Stopped;
            return ControlFlow::Break(());
        }
        self.scanned =
            Counter::new(self.scanned, Units::of(sink, false)).pos(character, character.len());
        ControlFlow::Continue(())
    }

    /// Scans `data`, which is valid UTF-8 made of whole characters (`ascii`: known to be
    /// ASCII only).
    pub(super) fn scan<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        ascii: bool,
        sink: &mut S,
    ) -> ControlFlow<()> {
        let mut at = Counter::new(self.scanned, Units::of(sink, ascii));
        let flow = self.scan_inner(data, sink, &mut at);
        self.scanned = at.pos(data, data.len());
        if flow.is_break() {
            self.state = State::Stopped;
        }
        flow
    }

    pub(super) fn scan_inner<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
        at: &mut Counter,
    ) -> ControlFlow<()> {
        // `i`: where the search for the current needle resumes in `data`; inside a match it
        // is also where the undelivered content in `data` begins.
        let mut i = 0;
        loop {
            let inside = self.state == State::Inside;
            let needle = if inside { &self.end } else { &self.start };
            let bytes = needle.bytes();
            // Where an occurrence of the needle ends (`data[..x]`).
            let x = if self.held > 0 {
                // The input so far ends with `bytes[..held]`. Think of the virtual text
                // V = bytes[..held] ++ data[i..] and run KMP on it from that state until
                // the candidate occurrence starts inside `data` or completes.
                let held = self.held;
                let (mut p, mut j) = (held, i);
                let mut complete = false;
                while j < data.len() {
                    p = needle.step(p, data[j]);
                    j += 1;
                    if p == bytes.len() {
                        complete = true;
                        break;
                    }
                    if p <= j - i {
                        break;
                    }
                }
                // Held bytes before the candidate's start are decided: not an occurrence.
                let candidate = held + (j - i) - p;
                let decided = candidate.min(held);
                if inside && decided > 0 {
                    sink.content(&bytes[..decided])?;
                }
                if complete {
                    // An occurrence completing here started within the held bytes.
                    self.held = 0;
                    j
                } else if p <= j - i {
                    // The candidate starts in `data`; what precedes it is decided too.
                    if inside && j - p > i {
                        sink.content(&data[i..j - p])?;
                    }
                    self.held = 0;
                    i = j - p;
                    continue;
                } else {
                    // `data` ran out while the candidate still starts in the held bytes: it
                    // is now `bytes[..p]`, all of `data[i..]` included.
                    self.held = p;
                    return ControlFlow::Continue(());
                }
            } else {
                match needle.finder.find(&data[i..]) {
                    Some(k) => {
                        if inside && k > 0 {
                            sink.content(&data[i..i + k])?;
                        }
                        i + k + bytes.len()
                    }
                    None => return self.hold_tail(&data[i..], sink),
                }
            };
            let end = at.pos(data, x);
            let begin = Pos {
                byte: end.byte - bytes.len() as u64,
                // 0 stays 0 when the sink declined UTF-16 offsets.
                utf16: end.utf16.saturating_sub(needle.utf16_len),
            };
            i = x;
            if inside {
                self.state = State::Seek;
                sink.close(begin, end)?;
            } else {
                self.state = State::Inside;
                self.open_marker = begin;
                sink.open(begin, end)?;
            }
        }
    }
}

/// Where a fast path's run over one slice stands between events.
pub(super) struct Run {
    /// Inside a match.
    pub(super) inside: bool,
    /// Inside: where the open match's undelivered content begins in the slice.
    pub(super) from: usize,
    /// Whether the open match's `open` is held back: a match that also closes in this run
    /// goes to the sink as one [`Sink::matched`] call. Its content begins at `content`.
    pub(super) held: bool,
    pub(super) content: Pos,
}

impl Run {
    #[inline(always)]
    pub(super) fn new(inside: bool) -> Run {
        Run {
            inside,
            from: 0,
            held: false,
            content: Pos::default(),
        }
    }
}

/// Which vector instructions the ASCII fast path uses: AVX2 where the CPU has it (found at
/// run time, as memchr does), else SSE2, which every x86-64 CPU has (or the portable
/// definitions elsewhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Simd {
    Baseline,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX2 and AVX-512 BW: the ASCII fast path uses the wider vectors, and so does the UTF-8
    /// one where the CPU also has VBMI (its nibble lookups are `vpermb`; without it, that
    /// path is AVX2's).
    #[cfg(target_arch = "x86_64")]
    Avx512 {
        vbmi: bool,
    },
}

impl Simd {
    pub(super) fn detect() -> Simd {
        // POPCNT counts UTF-16 units in the UTF-8 fast path; every AVX2 CPU has it.
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            if std::arch::is_x86_feature_detected!("avx512bw") {
                return Simd::Avx512 {
                    vbmi: std::arch::is_x86_feature_detected!("avx512vbmi"),
                };
            }
            return Simd::Avx2;
        }
        Simd::Baseline
    }
}

/// A walk over 64-byte blocks for two one-byte needles: the block's test for each needle
/// is computed once, when first needed, and reused for every event in the block.
#[derive(Default)]
pub(super) struct Blocks<const FOLD: bool> {
    /// Where the current block begins.
    pub(super) base: usize,
    /// Its test for each needle (start, end), once computed.
    pub(super) tests: [Option<u64>; 2],
}

impl<const FOLD: bool> Blocks<FOLD> {
    /// The next `byte` (needle `k`: 0 start, 1 end) or non-ASCII byte at or after
    /// `data[i]`: `Ok(q)` for the byte, `Err(x)` to hand over at `x` (not ASCII, or less than
    /// a block left). Calls come with `i` never decreasing.
    #[inline(always)]
    pub(super) fn next(
        &mut self,
        data: &[u8],
        i: usize,
        k: usize,
        byte: u8,
        (one, quiet): (
            &impl Fn(&[u8; 64], u8) -> u64,
            &impl Fn(&[u8; 128], u8) -> bool,
        ),
    ) -> Result<usize, usize> {
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
        // The current block, from `i` on.
        let Some(current) = block(self.base) else {
            return last_block(data, i.max(self.base), byte, one);
        };
        let stops = *self.tests[k].get_or_insert_with(|| one(current, byte));
        // Bits for the bytes before `i` are decided already (`i` is in this block).
        let mut ahead = stops & (!0u64 << (i - self.base));
        // Nothing there: the following blocks, for this byte only, in a tight loop.
        while ahead == 0 {
            self.base += 64;
            self.tests = [None, None];
            prefetch(data, self.base + PREFETCH_AHEAD);
            let Some(next) = block(self.base) else {
                return last_block(data, self.base, byte, one);
            };
            ahead = one(next, byte);
            if ahead == 0 && FOLD {
                // A quiet block: maybe a long quiet stretch. With SSE2, the vectorised fold
                // skips it faster than block tests do; with AVX2, it is the other way round.
                self.base += ascii_run_without(&data[self.base + 64..], byte);
            } else if ahead == 0 {
                // A quiet block: maybe a long quiet stretch, skipped two blocks per branch.
                // (Not before one quiet block: on dense text the second block would mostly
                // be tested in vain.) The pairs start on a 64-byte boundary of memory, a
                // little back into the quiet block, so that no load straddles cache lines.
                let back = (data.as_ptr() as usize + self.base) % 64;
                let mut next = self.base + 64 - back;
                while let Some(two) = data.get(next..next + 128) {
                    if !quiet(two.try_into().unwrap_or(&[0; 128]), byte) {
                        break;
                    }
                    next += 128;
                }
                // The loop above resumes at `next`.
                self.base = next - 64;
            }
        }
        // A new block's test is its whole mask: keep it for the other needle's turn too.
        self.tests[k].get_or_insert(ahead);
        let q = self.base + ahead.trailing_zeros() as usize;
        if data[q] == byte { Ok(q) } else { Err(q) }
    }
}

/// [`find_with`] with SSE2 (or the portable tests). Not inlined into the event loop: with
/// SSE2 that measured faster (dense text 0.64x -> 0.73x of `extract`, before the block walk
/// took over pairs of one-byte markers).
#[inline(never)]
pub(super) fn find_baseline(
    data: &[u8],
    i: usize,
    needle: &[u8],
    probe: Probe,
) -> Result<usize, usize> {
    // The quiet walk's tests are not used with `FOLD`.
    find_with::<true>(
        data,
        i,
        needle,
        probe,
        true,
        (stops64, |b, [f, s], [x, y]| {
            stops64_pair(b, [(f, x), (s, y)])
        }),
        (|_, _| false, |_, i, _, _| i),
    )
}

/// The ASCII fast path's search for `needle` (all ASCII, `probe` its probe) from `data[i]`,
/// given the block tests of one instruction set: `Ok(q)` where it occurs, `Err(x)` to hand
/// over at `x` (a non-ASCII byte, or less than a block and a needle left). Every byte before
/// either is ASCII and no occurrence starts before it. The tests come in pairs: per block
/// ([`stops64`], [`stops64_pair`]) and whether 128 bytes are quiet (for the walk over quiet
/// stretches, without `FOLD`).
#[inline(always)]
pub(super) fn find_with<const FOLD: bool>(
    data: &[u8],
    mut i: usize,
    needle: &[u8],
    probe: Probe,
    // Whether the block walk asks for data ahead (see [`streams_without_hints`]).
    hint: bool,
    // The probe's blocks and bytes apart: as one array of (block, byte) pairs, LLVM packed
    // them into vectors on the stack every block and unpacked the bytes again to broadcast
    // them, a chain through memory in the quiet loop.
    (one, pair): (
        impl Fn(&[u8; 64], u8) -> u64,
        impl Fn(&[u8; 64], [&[u8; 64]; 2], [u8; 2]) -> u64,
    ),
    (quiet, skip_pairs): (
        impl Fn(&[u8; 128], u8) -> bool,
        impl Fn(&[u8], usize, usize, [(usize, u8); 2]) -> usize,
    ),
) -> Result<usize, usize> {
    let ((i1, b1), (i2, b2)) = (probe.first, probe.second);
    if needle.len() == 1 {
        // The block walk, starting afresh at `i`, for this one needle.
        let mut blocks = Blocks::<FOLD> {
            base: i,
            tests: [None, None],
        };
        return blocks.next(data, i, 0, b1, (&one, &quiet));
    }
    // A block is only tested when a needle starting in it lies wholly in `data`.
    while let Some(window) = data.get(i..i + 64 + needle.len() - 1) {
        if hint {
            prefetch(data, i + PREFETCH_AHEAD);
        }
        let block = |at: usize| -> &[u8; 64] { window[at..at + 64].try_into().unwrap_or(&[0; 64]) };
        let stops = pair(block(0), [block(i1), block(i2)], [b1, b2]);
        if stops == 0 && !FOLD {
            // A quiet block: maybe a long quiet stretch, skipped two blocks per branch,
            // from a 64-byte boundary of memory a little back into the quiet block (so that
            // the blocks' own loads do not straddle cache lines).
            i += 64 - (data.as_ptr() as usize + i) % 64;
            i = skip_pairs(data, i, needle.len() - 1, [probe.first, probe.second]);
            continue;
        }
        if let Some(found) = resolve(data, needle, i, stops) {
            return found;
        }
        i += 64;
    }
    // Less than a window left: the window that ends with `data` instead, its bits before
    // `i` (decided) masked off, so that the general path is left only the bytes where a
    // needle would not fit (see [`last_block`]).
    let reach = 64 + needle.len() - 1;
    match data.len().checked_sub(reach) {
        Some(w) if i > w && i < w + 64 => {
            let window = &data[w..];
            let block =
                |at: usize| -> &[u8; 64] { window[at..at + 64].try_into().unwrap_or(&[0; 64]) };
            let stops = pair(block(0), [block(i1), block(i2)], [b1, b2]) & (!0u64 << (i - w));
            resolve(data, needle, w, stops).unwrap_or(Err(w + 64))
        }
        _ => Err(i),
    }
}

/// The quiet walk of [`find_with`]: from `i`, the first multiple of 128 bytes on whose 128
/// bytes (and the `reach` after them) `quiet` finds a stop, or that is not wholly in `data`.
/// Out of line, per instruction set: inlined into the search, the loop reloaded its
/// constant vectors from the stack at every step. `HINT`: whether it asks for data ahead.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn skip_pairs<const HINT: bool>(
    data: &[u8],
    mut i: usize,
    reach: usize,
    [(i1, b1), (i2, b2)]: [(usize, u8); 2],
    quiet: impl Fn(&[u8; 128], [&[u8; 128]; 2], [u8; 2]) -> bool,
) -> usize {
    while let Some(window) = data.get(i..i + 128 + reach) {
        if HINT {
            prefetch(data, i + PREFETCH_AHEAD);
            prefetch(data, i + PREFETCH_AHEAD + 64);
        }
        let two =
            |at: usize| -> &[u8; 128] { window[at..at + 128].try_into().unwrap_or(&[0; 128]) };
        if !quiet(two(0), [two(i1), two(i2)], [b1, b2]) {
            break;
        }
        i += 128;
    }
    i
}

/// [`skip_pairs`] with AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
#[target_feature(enable = "avx2")]
pub(super) fn skip_pairs_avx2<const HINT: bool>(
    data: &[u8],
    i: usize,
    reach: usize,
    probe: [(usize, u8); 2],
) -> usize {
    skip_pairs::<HINT>(data, i, reach, probe, |b, at, bytes| {
        avx2::quiet128_pair(b, at, bytes)
    })
}

/// [`skip_pairs`] with AVX-512 BW.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
#[target_feature(enable = "avx512bw,avx2")]
pub(super) fn skip_pairs_avx512<const HINT: bool>(
    data: &[u8],
    i: usize,
    reach: usize,
    probe: [(usize, u8); 2],
) -> usize {
    skip_pairs::<HINT>(data, i, reach, probe, |b, at, bytes| {
        avx512::quiet128_pair(b, at, bytes)
    })
}

/// The first stop of a block at `data[base]` that decides [`find_with`]: a byte that is not
/// ASCII (`Err`) or an occurrence of `needle` (`Ok`); `None` when every stop was a
/// candidate that did not match.
#[inline(always)]
pub(super) fn resolve(
    data: &[u8],
    needle: &[u8],
    base: usize,
    mut stops: u64,
) -> Option<Result<usize, usize>> {
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
pub(super) fn last_block(
    data: &[u8],
    i: usize,
    byte: u8,
    one: &impl Fn(&[u8; 64], u8) -> u64,
) -> Result<usize, usize> {
    let Some(w) = data.len().checked_sub(64) else {
        return Err(i);
    };
    if i <= w || i >= data.len() {
        // (`i <= w` does not happen: there would be a whole block after `i`.)
        return Err(i);
    }
    let stops = one(data[w..].try_into().unwrap_or(&[0; 64]), byte) & (!0u64 << (i - w));
    if stops == 0 {
        return Err(data.len());
    }
    let q = w + stops.trailing_zeros() as usize;
    if data[q] == byte { Ok(q) } else { Err(q) }
}
