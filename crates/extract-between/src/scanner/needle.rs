//! A marker as the scanner searches for it: its finder, its first-bytes probe, and the
//! prefix function that resumes a search across chunk boundaries.

use super::*;

/// One marker, prepared for searching within a chunk and across chunk boundaries.
#[derive(Clone, Debug)]
pub(super) struct Needle {
    pub(super) finder: memmem::Finder<'static>,
    /// KMP failure function: `fail[i]` is the length of the longest proper prefix of
    /// `needle[..=i]` that is also a suffix of it.
    pub(super) fail: Box<[u16]>,
    pub(super) utf16_len: u64,
    /// How the fast paths find it (needles of up to [`Probe::MAX_LEN`] bytes).
    pub(super) probe: Option<Probe>,
}

/// Two bytes of an all-ASCII needle and their offsets in it, tested together over 64-byte
/// blocks (see `AsciiKernels::stops64_pair`): the two rarest by memchr's byte-frequency ranking, as its
/// packed-pair search picks them, so that common bytes like `<` in HTML do not make every
/// position a candidate. A one-byte needle probes its byte twice.
///
/// The UTF-8 fast path tests the same two bytes (for a CJK bracket, its two continuation
/// bytes: a third compare per block cost more than the occasional candidate's compare).
#[derive(Clone, Copy, Debug)]
pub(super) struct Probe {
    pub(super) first: (usize, u8),
    pub(super) second: (usize, u8),
    /// The one byte a three-byte needle has left: a candidate is confirmed by comparing it
    /// alone.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) third: Option<(usize, u8)>,
    /// Whether the two probed bytes are the whole needle (a candidate is then an
    /// occurrence; decided here, once, not for every chunk).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) exact: bool,
    /// The needle itself (its first `len` bytes), kept here so the fast path owns a copy.
    pub(super) bytes: [u8; Probe::MAX_LEN],
    pub(super) len: usize,
    /// Whether the needle is all ASCII (the ASCII fast path takes only those).
    pub(super) ascii: bool,
}

impl Probe {
    /// The longest needle probed. A candidate costs a comparison of the whole needle, and
    /// text can make every other position a candidate (`xyxy…` against `xyxy…xx`): bounding
    /// the length keeps that linear, as `memmem`, which takes longer needles, is.
    const MAX_LEN: usize = 32;

    pub(super) fn new(needle: &[u8]) -> Option<Probe> {
        if needle.len() > Probe::MAX_LEN {
            return None;
        }
        let (i1, i2) = memchr::arch::all::packedpair::Pair::new(needle).map_or((0, 0), |p| {
            (usize::from(p.index1()), usize::from(p.index2()))
        });
        let mut bytes = [0; Probe::MAX_LEN];
        bytes[..needle.len()].copy_from_slice(needle);
        let exact = (0..needle.len()).all(|k| k == i1 || k == i2);
        let third = (0..needle.len())
            .find(|&k| k != i1 && k != i2)
            .filter(|_| needle.len() == 3)
            .map(|k| (k, needle[k]));
        Some(Probe {
            first: (i1, needle[i1]),
            second: (i2, needle[i2]),
            third,
            exact,
            bytes,
            len: needle.len(),
            ascii: needle.is_ascii(),
        })
    }

    #[inline]
    pub(super) fn needle(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl Needle {
    pub(super) fn new(needle: &str) -> Needle {
        let bytes = needle.as_bytes();
        let mut fail = vec![0u16; bytes.len()];
        let mut k = 0usize;
        for i in 1..bytes.len() {
            while k > 0 && bytes[i] != bytes[k] {
                k = usize::from(fail[k - 1]);
            }
            if bytes[i] == bytes[k] {
                k += 1;
            }
            // Markers are at most 4096 bytes (checked by `Markers`), so this fits.
            fail[i] = k as u16;
        }
        Needle {
            finder: memmem::Finder::new(bytes).into_owned(),
            fail: fail.into_boxed_slice(),
            utf16_len: utf16_len(bytes),
            probe: Probe::new(bytes),
        }
    }

    pub(super) fn bytes(&self) -> &[u8] {
        self.finder.needle()
    }

    /// Advances the KMP automaton from `p` matched bytes (`p < len`) over byte `b`.
    pub(super) fn step(&self, mut p: usize, b: u8) -> usize {
        let n = self.bytes();
        while p > 0 && n[p] != b {
            p = usize::from(self.fail[p - 1]);
        }
        if n[p] == b { p + 1 } else { 0 }
    }

    /// Length of the longest suffix of `data` that is a proper prefix of the needle, given
    /// that the needle does not occur in `data`.
    pub(super) fn tail_prefix(&self, data: &[u8]) -> usize {
        let from = data.len().saturating_sub(self.bytes().len() - 1);
        data[from..].iter().fold(0, |p, &b| self.step(p, b))
    }
}
