//! The ASCII fast path: validation and candidate search in one pass over 64-byte blocks.

use super::*;

impl Scanner {
    /// The fast path for all-ASCII needles over ASCII text: validates and finds candidates
    /// in one pass over 64-byte blocks ([`stops64_pair`]), reporting events as
    /// [`Scanner::scan`] would. It stops at the first non-ASCII byte, where less than a block
    /// and a needle are left, or when the needle sought next is not ASCII, and returns how
    /// much of `data` it decided: the caller scans the rest. It holds no needle prefix: a
    /// candidate near the end is left to the general path, which can hold one.
    pub(super) fn scan_ascii<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> (usize, ControlFlow<()>) {
        match self.simd {
            // The quiet walk's test is not used with `FOLD` (see [`Blocks::next`]).
            Simd::Baseline => {
                self.scan_ascii_with::<S, true>(data, sink, stops64, |_, _| false, find_baseline)
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Simd::Avx2` is only chosen when the CPU was found to have AVX2.
            #[allow(unsafe_code)]
            Simd::Avx2 => unsafe { self.scan_ascii_avx2(data, sink) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Simd::Avx512` is only chosen when the CPU has AVX-512 BW and AVX2.
            #[allow(unsafe_code)]
            Simd::Avx512 { .. } => unsafe { self.scan_ascii_avx512(data, sink) },
        }
    }

    /// [`Scanner::scan_ascii`] compiled with AVX2, its search inlined into the event loop.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub(super) fn scan_ascii_avx2<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> (usize, ControlFlow<()>) {
        use crate::utf8::avx2;
        let one = |b: &[u8; 64], x| avx2::stops64(b, x);
        let quiet = |b: &[u8; 128], x| avx2::quiet128(b, x);
        let hint = self.hints;
        self.scan_ascii_with::<S, false>(data, sink, one, quiet, |data, i, needle, probe| {
            find_with::<false>(
                data,
                i,
                needle,
                probe,
                hint,
                (one, |b, at, bytes| avx2::stops64_pair(b, at, bytes)),
                (quiet, |d, i, r, p| {
                    if hint {
                        skip_pairs_avx2::<true>(d, i, r, p)
                    } else {
                        skip_pairs_avx2::<false>(d, i, r, p)
                    }
                }),
            )
        })
    }

    /// [`Scanner::scan_ascii`] compiled with AVX-512 BW: a block is one vector.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw,avx2")]
    pub(super) fn scan_ascii_avx512<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> (usize, ControlFlow<()>) {
        let one = |b: &[u8; 64], x| avx512::stops64(b, x);
        let quiet = |b: &[u8; 128], x| avx512::quiet128(b, x);
        let hint = self.hints;
        self.scan_ascii_with::<S, false>(data, sink, one, quiet, |data, i, needle, probe| {
            find_with::<false>(
                data,
                i,
                needle,
                probe,
                hint,
                (one, |b, at, bytes| avx512::stops64_pair(b, at, bytes)),
                (quiet, |d, i, r, p| {
                    if hint {
                        skip_pairs_avx512::<true>(d, i, r, p)
                    } else {
                        skip_pairs_avx512::<false>(d, i, r, p)
                    }
                }),
            )
        })
    }

    /// The body of [`Scanner::scan_ascii`], given the block test and the search of one
    /// instruction set (`FOLD`: skip quiet stretches with [`ascii_run_without`]).
    #[inline(always)]
    pub(super) fn scan_ascii_with<S: Sink + ?Sized, const FOLD: bool>(
        &mut self,
        data: &[u8],
        sink: &mut S,
        one: impl Fn(&[u8; 64], u8) -> u64,
        quiet: impl Fn(&[u8; 128], u8) -> bool,
        find: impl Fn(&[u8], usize, &[u8], Probe) -> Result<usize, usize>,
    ) -> (usize, ControlFlow<()>) {
        // Two one-byte markers are read without copying their probes first: that copy was
        // about a quarter of the per-chunk work outside the walk on text without markers.
        let byte = |n: &Needle| match &n.probe {
            Some(p) if p.ascii && p.len == 1 => Some(p.bytes[0]),
            _ => None,
        };
        if let (Some(s), Some(e)) = (byte(&self.start), byte(&self.end)) {
            // Two one-byte markers: each block is tested once per marker, however many
            // events it holds, instead of once per event.
            let mut blocks = Blocks::<FOLD>::default();
            return self.ascii_events(data, sink, |data, i, inside| {
                blocks.next(
                    data,
                    i,
                    usize::from(inside),
                    if inside { e } else { s },
                    (&one, &quiet),
                )
            });
        }
        // The needle sought in each state, read once (`None`: the general path's job).
        let ascii = |p: Option<Probe>| p.filter(|p| p.ascii);
        let (seek, close) = (ascii(self.start.probe), ascii(self.end.probe));
        self.ascii_events(data, sink, |data, i, inside| {
            match if inside { &close } else { &seek } {
                Some(probe) => find(data, i, probe.needle(), *probe),
                None => Err(i),
            }
        })
    }

    /// The event loop of the ASCII fast path: [`Scanner::events`], one UTF-16 unit per byte.
    #[inline(always)]
    pub(super) fn ascii_events<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
        next: impl FnMut(&[u8], usize, bool) -> Result<usize, usize>,
    ) -> (usize, ControlFlow<()>) {
        let mut at = Counter::new(self.scanned, Units::of(sink, true));
        self.events(data, sink, next, move |data, x| at.pos(data, x))
    }
}
