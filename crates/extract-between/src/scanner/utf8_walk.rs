//! The UTF-8 fast path: a walk over 64-byte blocks that validates, counts UTF-16 units and
//! finds candidates at once, with a set of [`Utf8Kernels`].

use super::*;
use crate::kernels::{BlockUnits, Job, Kernels, PREFETCH_AHEAD, Utf8Kernels, prefetch};

/// The UTF-8 walk over one slice, run by the kernels' dispatch: one entry function for each
/// set and each pair of constants (see [`Scanner::scan_utf8_with`]), which keeps each small
/// enough for the compiler to inline every kernel into it.
struct Utf8Walk<S: ?Sized, const UTF16: bool>(core::marker::PhantomData<fn(&mut S)>);

impl<S: Sink + ?Sized, const UTF16: bool> Job for Utf8Walk<S, UTF16> {
    type State = Scanner;
    type Sink = S;
    type Out = Walked;
    #[inline(always)]
    fn run<K: Kernels>(self, scanner: &mut Scanner, data: &[u8], sink: &mut S, k: K) -> Walked {
        scanner.scan_utf8_with::<_, S, UTF16>(k.utf8(), data, sink)
    }
}

impl Scanner {
    /// The fast path for any text: validates UTF-8, counts UTF-16 units and finds
    /// candidates of the marker sought (of up to [`Probe::MAX_LEN`] bytes, ASCII or not) in
    /// one pass over 64-byte blocks, reporting events as [`Scanner::scan`] would. Like
    /// [`Scanner::scan_ascii`] it holds nothing and returns how much of `data` it decided,
    /// always up to a character boundary: it stops at a block that breaks UTF-8 (the
    /// general path then finds the exact byte) and where less than a block and a marker are
    /// left.
    pub(super) fn scan_utf8<S: Sink + ?Sized>(&mut self, data: &[u8], sink: &mut S) -> Walked {
        if sink.utf16_offsets() {
            self.utf8_walk::<S, true>(data, sink)
        } else {
            self.utf8_walk::<S, false>(data, sink)
        }
    }

    #[inline(always)]
    fn utf8_walk<S: Sink + ?Sized, const UTF16: bool>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> Walked {
        let isa = self.paths.isa;
        let walk = Utf8Walk::<S, UTF16>(core::marker::PhantomData);
        isa.run(walk, self, data, sink)
    }

    /// The body of [`Scanner::scan_utf8`] with one set of kernels. `UTF16`: whether the sink
    /// wants UTF-16 offsets (if not, the walk does not count units).
    #[inline(always)]
    fn scan_utf8_with<U: Utf8Kernels, S: Sink + ?Sized, const UTF16: bool>(
        &mut self,
        kernels: U,
        data: &[u8],
        sink: &mut S,
    ) -> Walked {
        let sides = [Side::of(kernels, &self.start), Side::of(kernels, &self.end)];
        let tests = Tests::<U, UTF16> {
            kernels,
            consts: kernels.consts(),
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
        let first = match padded_window(data, &mut padding) {
            Some(w) => tests.first(w, &sides),
            None => None,
        };
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
            sum: Counted::<U::Units, UTF16>::zero(),
            block: first,
            i: 0,
            units_i: start.utf16,
        };
        let flow = loop {
            // Each state has its own copy of the search, reading its own needle's fields
            // (chosen per event, they were selected by `inside` again at every use).
            let found = if run.inside {
                walk.seek::<1, _>(data, &sides, &tests)
            } else {
                walk.seek::<0, _>(data, &sides, &tests)
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
                            units + Counted::<U::Units, UTF16>::total(sum)
                                - utf16_len(&data[x..base])
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

/// A marker as the UTF-8 fast path seeks it.
struct Side<P> {
    /// The probed bytes: (offset in the marker, byte).
    pair: [(usize, u8); 2],
    /// Whether the probed bytes are the whole marker (a candidate is then an occurrence).
    exact: bool,
    /// A three-byte marker's third byte (see [`Probe`]).
    third: Option<(usize, u8)>,
    prefix: P,
    len: usize,
    /// Its length in UTF-16 units.
    units: u64,
}

impl<P> Side<P> {
    /// How the walk seeks `needle` (`None`: it has no probe, and is never sought here).
    #[inline(always)]
    fn of<U: Utf8Kernels<Prefix = P>>(kernels: U, needle: &Needle) -> Option<Side<P>> {
        let p = needle.probe?;
        Some(Side {
            pair: [p.first, p.second],
            exact: p.exact,
            third: p.third,
            prefix: kernels.prefix(&p.bytes, p.len),
            len: p.len,
            units: needle.utf16_len,
        })
    }
}

/// A set of UTF-8 kernels with the constants a walk prepared for it. (Methods, not
/// closures, call the kernels: a closure is compiled without the entry function's
/// instructions, and the kernels it calls were then not inlined.)
struct Tests<U: Utf8Kernels, const UTF16: bool> {
    kernels: U,
    consts: U::Consts,
}

impl<U: Utf8Kernels, const UTF16: bool> Tests<U, UTF16> {
    /// The block test. For a sink that declines UTF-16 offsets the walk counts one unit a
    /// byte, and the compiler drops the blocks' unit work from the loop.
    #[inline(always)]
    fn block(
        &self,
        window: &[u8; 98],
        probe: [(usize, u8); 2],
    ) -> Option<(Counted<U::Units, UTF16>, u64)> {
        let (units, found) = self.kernels.utf8_block(&self.consts, window, probe)?;
        Some((Counted(units), found))
    }

    /// The test of a chunk's first block (`w`, its padded window) for both markers: the
    /// block test finds the first marker with a probe; the other, if it has one, takes a
    /// second test.
    #[inline(always)]
    fn first(
        &self,
        w: &[u8; 98],
        sides: &[Option<Side<U::Prefix>>; 2],
    ) -> Option<(Counted<U::Units, UTF16>, [u64; 2])> {
        let pair = |k: usize| sides[k].as_ref().map(|s| s.pair);
        match (pair(0), pair(1)) {
            (Some(p0), p1) => {
                let (block, start) = self.block(w, p0)?;
                let end = match p1 {
                    Some(p) => self.candidates(w, p),
                    None => 0,
                };
                Some((block, [start, end]))
            }
            (None, Some(p1)) => {
                let (block, end) = self.block(w, p1)?;
                Some((block, [0, end]))
            }
            (None, None) => None,
        }
    }

    #[inline(always)]
    fn candidates(&self, window: &[u8; 98], probe: [(usize, u8); 2]) -> u64 {
        self.kernels.candidates(window, probe)
    }

    #[inline(always)]
    fn starts(&self, prefix: &U::Prefix, here: &[u8; 32]) -> bool {
        self.kernels.starts(prefix, here)
    }
}

/// A block's units, counted for a sink that takes UTF-16 offsets (`UTF16`), or one unit a
/// byte (unused) for one that declines them.
#[derive(Clone, Copy)]
struct Counted<U, const UTF16: bool>(U);

impl<U: BlockUnits, const UTF16: bool> Counted<U, UTF16> {
    #[inline(always)]
    fn zero() -> Option<U::Sum> {
        if UTF16 { Some(U::zero()) } else { None }
    }
    #[inline(always)]
    fn add(&self, sum: Option<U::Sum>) -> Option<U::Sum> {
        // Not `Option::map`: a closure would call the kernel without the set's instructions.
        #[allow(clippy::manual_map)]
        match sum {
            Some(sum) => Some(self.0.add(sum)),
            None => None,
        }
    }
    #[inline(always)]
    fn total(sum: Option<U::Sum>) -> u64 {
        match sum {
            Some(sum) => U::total(sum),
            None => 0,
        }
    }
    #[inline(always)]
    fn total_below(&self, k: u32, sum: Option<U::Sum>) -> u64 {
        match sum {
            Some(sum) => self.0.total_below(k, sum),
            None => u64::from(k),
        }
    }
}

/// Where the UTF-8 fast path stands (`U`: how its blocks' units are kept).
struct Walk<U: BlockUnits, const UTF16: bool> {
    /// The current block, and the UTF-16 units before it: `units` plus the blocks' units
    /// summed since (`sum`, as the instruction set keeps them; read at events).
    base: usize,
    units: u64,
    sum: Option<U::Sum>,
    /// Its test once made, with each needle's candidates in it.
    block: Option<(Counted<U, UTF16>, [u64; 2])>,
    /// Where the search resumes, a character boundary, and the units before it.
    i: usize,
    units_i: u64,
}

impl<U: BlockUnits, const UTF16: bool> Walk<U, UTF16> {
    /// Finds needle `K` (0: start, 1: end) at or after `i`: its position and the one after
    /// it, with their units, and resumes after it. `None`: the needle has no probe, or a
    /// block could not be tested (invalid, or not wholly in `data` with the bytes a needle
    /// starting in it may reach); `base` is then that block.
    #[inline(always)]
    fn seek<const K: usize, T: Utf8Kernels<Units = U>>(
        &mut self,
        data: &[u8],
        sides: &[Option<Side<T::Prefix>>; 2],
        tests: &Tests<T, UTF16>,
    ) -> Option<[(usize, u64); 2]> {
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
                        prefetch(rest, PREFETCH_AHEAD);
                        let Some(w) = rest.first_chunk::<98>() else {
                            break None;
                        };
                        let Some((block, c)) = tests.block(w, side.pair) else {
                            break None;
                        };
                        if c >> skip != 0 {
                            // The other needle is sought next, and mostly found here too.
                            let other = match &sides[1 - K] {
                                Some(o) => tests.candidates(w, o.pair),
                                None => 0,
                            };
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
                            tests.starts(&side.prefix, here.unwrap_or(&[0; 32]))
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
    fn next_block(&mut self, block: Counted<U, UTF16>) {
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
#[inline(always)]
fn padded_window<'a>(data: &[u8], padding: &'a mut [u8; 98]) -> Option<&'a [u8; 98]> {
    padding[3..].copy_from_slice(data.get(..95)?);
    Some(padding)
}

/// The character boundary at or before `i`, not before `start` (a boundary), where the bytes
/// before `i` were validated except for a character cut at `i`, whose lead is then the
/// boundary (as is a lead that cannot begin a character, left for the general path to judge).
fn boundary(data: &[u8], start: usize, i: usize) -> usize {
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
