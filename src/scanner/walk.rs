//! The UTF-8 fast path: a walk over 64-byte blocks that validates, counts UTF-16 units and
//! finds candidates at once.

use super::*;

impl Scanner {
    /// The fast path for any text, on CPUs with AVX2: validates UTF-8, counts UTF-16 units
    /// and finds candidates of the needle sought (of up to [`Probe::MAX_LEN`] bytes, ASCII or
    /// not) in one pass over 64-byte blocks (`utf8::avx2::utf8_block`), reporting events as
    /// [`Scanner::scan`] would. Like [`Scanner::scan_ascii`] it holds nothing and returns how
    /// much of `data` it decided, always up to a character boundary: it stops at a block
    /// that breaks UTF-8 (the general path then finds the exact byte) and where less than a
    /// block and a needle are left. Elsewhere it decides nothing.
    pub(super) fn scan_utf8<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> (usize, ControlFlow<()>) {
        match self.simd {
            Simd::Baseline => {
                let _ = (data, sink);
                (0, ControlFlow::Continue(()))
            }
            // SAFETY: `Simd::Avx2` and `Simd::Avx512` are only chosen when the CPU has AVX2
            // and POPCNT.
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            Simd::Avx2 | Simd::Avx512 { vbmi: false } => unsafe {
                match (sink.utf16_offsets(), self.hints) {
                    (true, true) => self.scan_utf8_avx2::<S, true, true>(data, sink),
                    (true, false) => self.scan_utf8_avx2::<S, true, false>(data, sink),
                    (false, true) => self.scan_utf8_avx2::<S, false, true>(data, sink),
                    (false, false) => self.scan_utf8_avx2::<S, false, false>(data, sink),
                }
            },
            // SAFETY: `Simd::Avx512 { vbmi: true }` is only chosen when the CPU has AVX-512
            // BW and VBMI, AVX2 and POPCNT.
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            Simd::Avx512 { vbmi: true } => unsafe {
                match (sink.utf16_offsets(), self.hints) {
                    (true, true) => self.scan_utf8_avx512::<S, true, true>(data, sink),
                    (true, false) => self.scan_utf8_avx512::<S, true, false>(data, sink),
                    (false, true) => self.scan_utf8_avx512::<S, false, true>(data, sink),
                    (false, false) => self.scan_utf8_avx512::<S, false, false>(data, sink),
                }
            },
        }
    }

    /// [`Scanner::scan_utf8`] compiled with AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) fn scan_utf8_avx2<S: Sink + ?Sized, const UTF16: bool, const HINT: bool>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> (usize, ControlFlow<()>) {
        let consts = avx2::Consts::new();
        self.scan_utf8_with::<S, _, UTF16, HINT>(
            data,
            sink,
            |w, p| avx2::utf8_block(&consts, w, p),
            |w, p| avx2::candidates(w, p),
            |n, len| avx2::Prefix::new(n, len),
            |n, here| n.starts(here),
        )
    }

    /// [`Scanner::scan_utf8`] with the block tests compiled with AVX-512 BW.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw,avx512vbmi,avx2,popcnt")]
    pub(super) fn scan_utf8_avx512<S: Sink + ?Sized, const UTF16: bool, const HINT: bool>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> (usize, ControlFlow<()>) {
        self.scan_utf8_with::<S, _, UTF16, HINT>(
            data,
            sink,
            |w, p| avx512::utf8_block(w, p),
            |w, p| avx512::candidates(w, p),
            |n, len| avx2::Prefix::new(n, len),
            |n, here| n.starts(here),
        )
    }

    /// The body of [`Scanner::scan_utf8`], given the block tests of one instruction set:
    /// `block` validates a block, counts its units and finds a needle's candidates in it
    /// (`None`: invalid), `candidates` finds another needle's, and `prefix` and `starts`
    /// prepare a needle and compare it with the bytes at a candidate. `UTF16`: whether the
    /// sink wants UTF-16 offsets (if not, the walk does not count units); `HINT`: whether the
    /// quiet walk asks for data ahead (a constant: read from the scanner in the loop, it cost
    /// the Unicode corpus 7 %).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(super) fn scan_utf8_with<
        S: Sink + ?Sized,
        U: BlockUnits,
        const UTF16: bool,
        const HINT: bool,
    >(
        &mut self,
        data: &[u8],
        sink: &mut S,
        block: impl Fn(&[u8; 98], [(usize, u8); 2]) -> Option<(U, u64)>,
        candidates: impl Fn(&[u8; 98], [(usize, u8); 2]) -> u64,
        prefix: impl Fn(&[u8; 32], usize) -> avx2::Prefix,
        starts: impl Fn(&avx2::Prefix, &[u8; 32]) -> bool,
    ) -> (usize, ControlFlow<()>) {
        // A needle without a probe is never sought here.
        let side = |needle: &Needle| {
            needle.probe.map(|p| Side {
                pair: [p.first, p.second],
                exact: p.exact,
                third: p.third,
                prefix: prefix(&p.bytes, p.len),
                len: p.len,
                units: needle.utf16_len,
            })
        };
        let sides = [side(&self.start), side(&self.end)];
        // For a sink that declines UTF-16 offsets the walk counts one unit a byte, and the
        // compiler drops the blocks' unit work from the loop.
        let block = |w: &[u8; 98], p| block(w, p).map(|(u, c)| (Counted::<_, UTF16>(u), c));
        let tests = Tests {
            block,
            candidates,
            starts,
            hint: HINT,
        };
        let start = self.scanned;
        let pos = |x: usize, units: u64| Pos {
            byte: start.byte + x as u64,
            utf16: if UTF16 { units } else { 0 },
        };
        let mut run = Run::new(self.state == State::Inside);
        // The chunk's first block, tested here for both needles: its window needs zeros
        // before it (see [`padded_window`]), the others are read straight from `data`.
        let mut padding = [0; 98];
        let first = padded_window(data, &mut padding).and_then(|w| {
            let pair = |k: usize| sides[k].as_ref().map(|s| s.pair);
            // The block test finds the first needle with a probe; the other, if it has one,
            // takes a second test.
            match (pair(0), pair(1)) {
                (Some(p0), p1) => {
                    let (block, start) = (tests.block)(w, p0)?;
                    Some((block, [start, p1.map_or(0, |p| (tests.candidates)(w, p))]))
                }
                (None, Some(p1)) => {
                    let (block, end) = (tests.block)(w, p1)?;
                    Some((block, [0, end]))
                }
                (None, None) => None,
            }
        });
        if first.is_none() {
            // Nothing testable: all of it is the general path's.
            return self.hand_over(
                data,
                sink,
                (0, pos(0, start.utf16)),
                ControlFlow::Continue(()),
                run,
            );
        }
        let mut walk = Walk {
            base: 0,
            units: start.utf16,
            sum: Counted::<U, UTF16>::zero(),
            block: first,
            i: 0,
            units_i: start.utf16,
        };
        let flow = loop {
            // Each state has its own copy of the search, reading its own needle's fields
            // (chosen per event, they were selected by `inside` again at every use).
            let found = if run.inside {
                walk.seek::<1, _, _, _>(data, &sides, &tests)
            } else {
                walk.seek::<0, _, _, _>(data, &sides, &tests)
            };
            let Some([(q, units_q), (i, units_i)]) = found else {
                break ControlFlow::Continue(());
            };
            let (begin, end) = (pos(q, units_q), pos(i, units_i));
            let flow = self.report(data, sink, [q, i], [begin, end], &mut run);
            if flow.is_break() {
                break flow;
            }
        };
        // Hand over after the last event, or at the block that could not be tested (after
        // stepping back over a character it cuts, but not before `i`: what precedes it is
        // decided).
        let Walk {
            base,
            units,
            sum,
            i,
            units_i,
            ..
        } = walk;
        let (x, units_x) = match flow {
            ControlFlow::Break(()) => (i, units_i),
            ControlFlow::Continue(()) => {
                let x = boundary(data, i, base).max(i);
                if x == i {
                    (i, units_i)
                } else {
                    // Units are only counted back for a sink that takes them (the units
                    // before `base` are `units` and the blocks summed since).
                    (
                        x,
                        if UTF16 {
                            units + Counted::<U, UTF16>::total(sum) - utf16_len(&data[x..base])
                        } else {
                            0
                        },
                    )
                }
            }
        };
        self.hand_over(data, sink, (x, pos(x, units_x)), flow, run)
    }
}

/// A needle as the UTF-8 fast path seeks it.
#[cfg(target_arch = "x86_64")]
pub(super) struct Side {
    /// The probed bytes: (offset in the needle, byte).
    pub(super) pair: [(usize, u8); 2],
    /// Whether the probed bytes are the whole needle (a candidate is then an occurrence).
    pub(super) exact: bool,
    /// A three-byte needle's third byte (see [`Probe`]).
    pub(super) third: Option<(usize, u8)>,
    pub(super) prefix: avx2::Prefix,
    pub(super) len: usize,
    /// Its length in UTF-16 units.
    pub(super) units: u64,
}

/// The block tests of one instruction set (see [`Scanner::scan_utf8_with`]).
#[cfg(target_arch = "x86_64")]
pub(super) struct Tests<B, C, T> {
    pub(super) block: B,
    pub(super) candidates: C,
    pub(super) starts: T,
    /// Whether the quiet walk asks for data ahead.
    pub(super) hint: bool,
}

/// The UTF-16 units of a block the UTF-8 fast path tested, as one instruction set keeps
/// them: [`Utf8Block`]'s bit masks (AVX2) or [`avx512::Units`]' vector.
#[cfg(target_arch = "x86_64")]
pub(crate) trait BlockUnits: Copy {
    /// A running sum of whole blocks' units.
    type Sum: Copy;
    fn zero() -> Self::Sum;
    /// `sum` plus this block's units.
    fn add(&self, sum: Self::Sum) -> Self::Sum;
    fn total(sum: Self::Sum) -> u64;
    /// [`BlockUnits::total`] of `sum` plus the units of the block's bytes below `k`.
    fn total_below(&self, k: u32, sum: Self::Sum) -> u64;
}

#[cfg(target_arch = "x86_64")]
impl BlockUnits for Utf8Block {
    type Sum = u64;
    #[inline(always)]
    fn zero() -> u64 {
        0
    }
    #[inline(always)]
    fn add(&self, sum: u64) -> u64 {
        sum + self.units_below(64)
    }
    #[inline(always)]
    fn total(sum: u64) -> u64 {
        sum
    }
    #[inline(always)]
    fn total_below(&self, k: u32, sum: u64) -> u64 {
        sum + self.units_below(k)
    }
}

/// A value of [`avx512::Units`] is only made by [`avx512::utf8_block`], which runs only on
/// a CPU with AVX-512 BW: its methods' requirement.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
impl BlockUnits for avx512::Units {
    type Sum = core::arch::x86_64::__m512i;
    #[inline(always)]
    fn zero() -> Self::Sum {
        // SAFETY: see the impl (AVX-512 F, part of BW).
        unsafe { core::arch::x86_64::_mm512_setzero_si512() }
    }
    #[inline(always)]
    fn add(&self, sum: Self::Sum) -> Self::Sum {
        // SAFETY: see the impl.
        unsafe { avx512::Units::add(self, sum) }
    }
    #[inline(always)]
    fn total(sum: Self::Sum) -> u64 {
        // SAFETY: see the impl.
        unsafe { avx512::Units::total(sum) }
    }
    #[inline(always)]
    fn total_below(&self, k: u32, sum: Self::Sum) -> u64 {
        // SAFETY: see the impl.
        unsafe { avx512::Units::total_below(self, k, sum) }
    }
}

/// A block's units, counted for a sink that takes UTF-16 offsets (`UTF16`), or one unit a
/// byte (unused) for one that declines them.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct Counted<U, const UTF16: bool>(pub(super) U);

#[cfg(target_arch = "x86_64")]
impl<U: BlockUnits, const UTF16: bool> Counted<U, UTF16> {
    #[inline(always)]
    pub(super) fn zero() -> Option<U::Sum> {
        UTF16.then(U::zero)
    }
    #[inline(always)]
    pub(super) fn add(&self, sum: Option<U::Sum>) -> Option<U::Sum> {
        sum.map(|s| self.0.add(s))
    }
    #[inline(always)]
    pub(super) fn total(sum: Option<U::Sum>) -> u64 {
        sum.map_or(0, U::total)
    }
    #[inline(always)]
    pub(super) fn total_below(&self, k: u32, sum: Option<U::Sum>) -> u64 {
        match sum {
            Some(sum) => self.0.total_below(k, sum),
            None => u64::from(k),
        }
    }
}

/// Where the UTF-8 fast path stands (`U`: how its blocks' units are kept).
#[cfg(target_arch = "x86_64")]
pub(super) struct Walk<U: BlockUnits, const UTF16: bool> {
    /// The current block, and the UTF-16 units before it: `units` plus the blocks' units
    /// summed since (`sum`, as the instruction set keeps them; read at events).
    pub(super) base: usize,
    pub(super) units: u64,
    pub(super) sum: Option<U::Sum>,
    /// Its test once made, with each needle's candidates in it.
    pub(super) block: Option<(Counted<U, UTF16>, [u64; 2])>,
    /// Where the search resumes, a character boundary, and the units before it.
    pub(super) i: usize,
    pub(super) units_i: u64,
}

#[cfg(target_arch = "x86_64")]
impl<U: BlockUnits, const UTF16: bool> Walk<U, UTF16> {
    /// Finds needle `K` (0: start, 1: end) at or after `i`: its position and the one after
    /// it, with their units, and resumes after it. `None`: the needle has no probe, or a
    /// block could not be tested (invalid, or not wholly in `data` with the bytes a needle
    /// starting in it may reach); `base` is then that block.
    #[inline(always)]
    pub(super) fn seek<const K: usize, B, C, T>(
        &mut self,
        data: &[u8],
        sides: &[Option<Side>; 2],
        tests: &Tests<B, C, T>,
    ) -> Option<[(usize, u64); 2]>
    where
        B: Fn(&[u8; 98], [(usize, u8); 2]) -> Option<(Counted<U, UTF16>, u64)>,
        C: Fn(&[u8; 98], [(usize, u8); 2]) -> u64,
        T: Fn(&avx2::Prefix, &[u8; 32]) -> bool,
    {
        let side = sides[K].as_ref()?;
        loop {
            let (block, found) = match self.block {
                // The last needle found ends past its block: move on.
                Some((block, _)) if self.i >= self.base + 64 => {
                    self.next_block(block);
                    continue;
                }
                Some((block, found)) => (block, found[K]),
                None => {
                    // Most blocks are reached here, in quiet stretches: one fused test per
                    // block until one holds a candidate at or after `i`.
                    // In locals: a field of `self` lives in memory, a store per block.
                    let (mut base, mut sum) = (self.base, self.sum);
                    let mut skip = self.i.saturating_sub(base);
                    // From the window of the block at `base` (see [`padded_window`]) on: the first
                    // block was tested before the walk, so `base` is past it. A step of the
                    // loop is then one length test.
                    let mut rest = base.checked_sub(3).and_then(|b| data.get(b..))?;
                    let tested = loop {
                        if tests.hint {
                            prefetch(rest, PREFETCH_AHEAD);
                        }
                        let Some(w) = rest.first_chunk::<98>() else {
                            break None;
                        };
                        let Some((block, c)) = (tests.block)(w, side.pair) else {
                            break None;
                        };
                        if c >> skip != 0 {
                            // The other needle is sought next, and mostly found here too.
                            let other = sides[1 - K]
                                .as_ref()
                                .map_or(0, |o| (tests.candidates)(w, o.pair));
                            break Some((block, c, other));
                        }
                        sum = block.add(sum);
                        base += 64;
                        rest = &rest[64..];
                        skip = 0;
                    };
                    (self.base, self.sum) = (base, sum);
                    let (block, c, other) = tested?;
                    let mut found = [other; 2];
                    found[K] = c;
                    self.block = Some((block, found));
                    (block, c)
                }
            };
            // Starts before `i` are decided (`i` is before this block's end: the arm above
            // moved on otherwise, so the shift is below 64).
            let mut found = found & (!0u64 << (self.i.saturating_sub(self.base) & 63));
            while found != 0 {
                let bit = found.trailing_zeros();
                let q = self.base + bit as usize;
                // A block is only tested when 32 bytes follow any start in it.
                let occurs = side.exact
                    || match side.third {
                        Some((at, byte)) => data.get(q + at) == Some(&byte),
                        None => {
                            let here = data.get(q..).and_then(<[u8]>::first_chunk::<32>);
                            (tests.starts)(&side.prefix, here.unwrap_or(&[0; 32]))
                        }
                    };
                if occurs {
                    let units_q = self.units + block.total_below(bit, self.sum);
                    (self.i, self.units_i) = (q + side.len, units_q + side.units);
                    return Some([(q, units_q), (self.i, self.units_i)]);
                }
                found &= found - 1;
            }
            self.next_block(block);
        }
    }

    /// Leaves the current block (tested) for the next.
    #[inline(always)]
    pub(super) fn next_block(&mut self, block: Counted<U, UTF16>) {
        self.sum = block.add(self.sum);
        self.base += 64;
        self.block = None;
    }
}

/// The bytes the UTF-8 fast path tests for a block (its window): the three before it
/// (validation's context), the block, and the 31 after it (where a needle starting in it may
/// reach). For the chunk's first block, which has none before it, they are zeros: a
/// character boundary, nothing before it asks for a continuation byte, and zeros do not.
/// `None` when the chunk is shorter than the rest of the window.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn padded_window<'a>(data: &[u8], padding: &'a mut [u8; 98]) -> Option<&'a [u8; 98]> {
    padding[3..].copy_from_slice(data.get(..95)?);
    Some(padding)
}

/// The character boundary at or before `i`, not before `start` (a boundary), where the bytes
/// before `i` were validated except for a character cut at `i`, whose lead is then the
/// boundary (as is a lead that cannot begin a character, left for the general path to judge).
#[cfg(target_arch = "x86_64")]
pub(super) fn boundary(data: &[u8], start: usize, i: usize) -> usize {
    for l in (i.saturating_sub(3).max(start)..i).rev() {
        if (data[l] as i8) >= -0x40 {
            return match sequence_len(data[l]) {
                Some(n) if l + n <= i => i,
                _ => l,
            };
        }
    }
    i
}
