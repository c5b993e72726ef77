//! A tag set's searchers: its start markers (the leftmost, the longest where several begin at
//! one place) and each pair's end marker, and how much of a slice's end may still begin one
//! (what the scanner must carry to the next chunk).

use crate::markers::Markers;
use aho_corasick::{AhoCorasick, MatchKind};
use memchr::memmem::Finder;

/// The start markers of a set.
#[derive(Clone, Debug)]
pub(super) struct Starts {
    search: Search,
    markers: Vec<Box<[u8]>>,
    /// For each byte, the start markers that begin with it.
    by_first: Vec<Vec<usize>>,
    max_len: usize,
}

#[derive(Clone, Debug)]
enum Search {
    /// One pair: `memmem`, as the scanner's.
    One(Box<Finder<'static>>),
    /// Several beginning with at most three distinct bytes: `memchr` finds a candidate and
    /// the markers that begin with its byte are compared there, longest first; many
    /// candidates in a row that begin no marker hand the rest over to Aho–Corasick, which
    /// bounds the comparisons.
    Firsts { bytes: Vec<u8>, ac: AhoCorasick },
    /// Several: Aho–Corasick, leftmost-longest (its packed SIMD searcher for few markers).
    Many(AhoCorasick),
    /// Several, a `memmem` each (see `Starts::new`).
    Each(Vec<Finder<'static>>),
}

impl Starts {
    pub(super) fn new(pairs: &[Markers]) -> Starts {
        let markers: Vec<Box<[u8]>> = pairs.iter().map(|m| m.start().as_bytes().into()).collect();
        let mut by_first: Vec<Vec<usize>> = vec![Vec::new(); 256];
        for (tag, marker) in markers.iter().enumerate() {
            by_first[usize::from(marker[0])].push(tag);
        }
        // Longest first: the first that matches at a place is the one that wins there.
        for tags in &mut by_first {
            tags.sort_by_key(|&tag| core::cmp::Reverse(markers[tag].len()));
        }
        let firsts: Vec<u8> = (0..=255u8)
            .filter(|&b| !by_first[usize::from(b)].is_empty())
            .collect();
        let search = match &markers[..] {
            [one] => Search::One(Box::new(Finder::new(one).into_owned())),
            many => match AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(many)
            {
                Ok(ac) if firsts.len() <= 3 => Search::Firsts { bytes: firsts, ac },
                Ok(ac) => Search::Many(ac),
                // Only an automaton past its state limits fails to build, which 64 markers
                // of 4096 bytes are far from; were it to, a search per marker still answers.
                Err(_) => Search::Each(many.iter().map(|m| Finder::new(m).into_owned()).collect()),
            },
        };
        let max_len = markers.iter().map(|m| m.len()).max().unwrap_or(1);
        Starts {
            search,
            markers,
            by_first,
            max_len,
        }
    }

    /// The leftmost start marker in `hay` (the longest of those that begin there): its pair,
    /// where it begins and where it ends.
    #[inline]
    pub(super) fn find(&self, hay: &[u8]) -> Option<(usize, usize, usize)> {
        match &self.search {
            Search::One(finder) => finder.find(hay).map(|s| (0, s, s + finder.needle().len())),
            Search::Firsts { bytes, ac } => self.by_candidates(bytes, ac, hay),
            Search::Many(ac) => leftmost(ac, hay, 0),
            Search::Each(finders) => finders
                .iter()
                .enumerate()
                .filter_map(|(tag, f)| f.find(hay).map(|s| (tag, s, s + f.needle().len())))
                .min_by_key(|&(_, s, e)| (s, usize::MAX - e)),
        }
    }

    /// [`find`](Self::find) by candidates: a place where one of `bytes` is, then the markers
    /// that begin with it, compared there longest first.
    fn by_candidates(
        &self,
        bytes: &[u8],
        ac: &AhoCorasick,
        hay: &[u8],
    ) -> Option<(usize, usize, usize)> {
        let mut at = 0;
        for _ in 0..MISSES {
            let found = match *bytes {
                [a] => memchr::memchr(a, &hay[at..]),
                [a, b] => memchr::memchr2(a, b, &hay[at..]),
                [a, b, c, ..] => memchr::memchr3(a, b, c, &hay[at..]),
                [] => None,
            };
            let p = at + found?;
            let rest = &hay[p..];
            let tags = &self.by_first[usize::from(hay[p])];
            if let Some(&tag) = tags.iter().find(|&&t| rest.starts_with(&self.markers[t])) {
                return Some((tag, p, p + self.markers[tag].len()));
            }
            at = p + 1;
        }
        leftmost(ac, hay, at)
    }

    /// The longest marker, in bytes.
    pub(super) fn max_len(&self) -> usize {
        self.max_len
    }

    /// Where the longest suffix of `hay` that is a proper prefix of some start marker begins
    /// (`hay.len()` when there is none): the bytes from there may begin a marker that the
    /// next chunk completes.
    pub(super) fn open_suffix(&self, hay: &[u8]) -> usize {
        let from = hay.len().saturating_sub(self.max_len - 1);
        for (h, &b) in hay.iter().enumerate().skip(from) {
            let rest = &hay[h..];
            let begins = self.by_first[usize::from(b)].iter().any(|&tag| {
                let marker = &self.markers[tag];
                marker.len() > rest.len() && marker.starts_with(rest)
            });
            if begins {
                return h;
            }
        }
        hay.len()
    }
}

/// Candidates in a row that begin no marker before Aho–Corasick takes over the search.
const MISSES: usize = 16;

/// Aho–Corasick's leftmost-longest start marker in `hay[from..]`, at places in `hay`.
fn leftmost(ac: &AhoCorasick, hay: &[u8], from: usize) -> Option<(usize, usize, usize)> {
    ac.find(aho_corasick::Input::new(hay).range(from..))
        .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
}

/// Each pair's end marker.
#[derive(Clone, Debug)]
pub(super) struct Ends {
    finders: Vec<Finder<'static>>,
}

impl Ends {
    pub(super) fn new(pairs: &[Markers]) -> Ends {
        Ends {
            finders: pairs
                .iter()
                .map(|m| Finder::new(m.end().as_bytes()).into_owned())
                .collect(),
        }
    }

    /// Where pair `tag`'s end marker first begins in `hay`, and its length.
    #[inline]
    pub(super) fn find(&self, tag: usize, hay: &[u8]) -> (Option<usize>, usize) {
        let finder = &self.finders[tag];
        (finder.find(hay), finder.needle().len())
    }

    /// Where the longest suffix of `hay` that is a proper prefix of pair `tag`'s end marker
    /// begins (`hay.len()` when there is none).
    pub(super) fn open_suffix(&self, tag: usize, hay: &[u8]) -> usize {
        let end = self.finders[tag].needle();
        let from = hay.len().saturating_sub(end.len() - 1);
        (from..hay.len())
            .find(|&h| hay[h] == end[0] && end.starts_with(&hay[h..]))
            .unwrap_or(hay.len())
    }
}
