//! Match assembly: turns the scanner's events into whole [`Match`]es — zero-copy slices of
//! the chunk where a match lies inside one, copies up to `max_match_bytes` where it spans
//! chunks — and keeps the `max_matches` cap.

use super::*;

/// How the content of the open match is held so far.
#[derive(Debug)]
enum Content {
    /// Nothing yet.
    Empty,
    /// `chunk[range]` of the current chunk: zero-copy so far.
    Slice(Range<usize>),
    /// Copied, because it spans chunks or came from held marker bytes.
    Owned,
}

/// Match assembly's state: the open match so far and the matches completed, waiting to be
/// handed out. [`Feeding`] builds them from the scanner's events.
#[derive(Debug)]
struct Assembler {
    content: Content,
    owned: BytesMut,
    len: usize,
    start: Pos,
    max_match_bytes: usize,
    ready: VecDeque<Match>,
    too_large: Option<Pos>,
}

impl Assembler {
    /// Ends the chunk's turn: a match still open moves to owned storage, as the chunk goes.
    fn detach(&mut self, chunk: &[u8]) {
        if let Content::Slice(range) = &self.content {
            self.owned.clear();
            self.owned.extend_from_slice(&chunk[range.clone()]);
            self.content = Content::Owned;
        }
    }
}

/// The assembler while it is fed `chunk`: it borrows the chunk for the scan only, so that
/// sharing it with the matches inside it costs a reference count per match and none per
/// chunk (the chunk was cloned into the assembler and dropped again, two atomic updates a
/// chunk).
struct Feeding<'a> {
    asm: &'a mut Assembler,
    chunk: &'a Bytes,
}

impl Feeding<'_> {
    /// Where `fragment` lies inside the chunk, if it does.
    fn locate(&self, fragment: &[u8]) -> Option<usize> {
        let base = self.chunk.as_ptr() as usize;
        let at = fragment.as_ptr() as usize;
        (at >= base && at + fragment.len() <= base + self.chunk.len()).then(|| at - base)
    }
}

impl Sink for Feeding<'_> {
    fn open(&mut self, _marker: Pos, content: Pos) -> ControlFlow<()> {
        let asm = &mut *self.asm;
        asm.content = Content::Empty;
        asm.owned.clear();
        asm.len = 0;
        asm.start = content;
        ControlFlow::Continue(())
    }

    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
        let at = self.locate(fragment);
        let asm = &mut *self.asm;
        asm.len += fragment.len();
        if asm.len > asm.max_match_bytes {
            asm.too_large = Some(asm.start);
            return ControlFlow::Break(());
        }
        asm.content = match (std::mem::replace(&mut asm.content, Content::Empty), at) {
            // First fragment, inside the chunk: share it.
            (Content::Empty, Some(a)) => Content::Slice(a..a + fragment.len()),
            // Contiguous with the shared part: still one slice.
            (Content::Slice(r), Some(a)) if r.end == a => {
                Content::Slice(r.start..a + fragment.len())
            }
            // Anything else is copied, starting with what was shared.
            (Content::Slice(r), _) => {
                asm.owned.clear();
                asm.owned.extend_from_slice(&self.chunk[r]);
                asm.owned.extend_from_slice(fragment);
                Content::Owned
            }
            (Content::Empty | Content::Owned, _) => {
                asm.owned.extend_from_slice(fragment);
                Content::Owned
            }
        };
        ControlFlow::Continue(())
    }

    fn close(&mut self, content_end: Pos, _marker_end: Pos) -> ControlFlow<()> {
        let asm = &mut *self.asm;
        let content = match std::mem::replace(&mut asm.content, Content::Empty) {
            Content::Empty => Bytes::new(),
            Content::Slice(r) => self.chunk.slice(r),
            Content::Owned => asm.owned.split().freeze(),
        };
        asm.ready.push_back(Match {
            content,
            start: asm.start,
            end: content_end,
        });
        ControlFlow::Continue(())
    }

    fn matched(&mut self, open: [Pos; 2], content: &[u8], close: [Pos; 2]) -> ControlFlow<()> {
        if content.len() > self.asm.max_match_bytes {
            self.asm.too_large = Some(open[1]);
            return ControlFlow::Break(());
        }
        let content = match self.locate(content) {
            Some(a) => self.chunk.slice(a..a + content.len()),
            None => Bytes::copy_from_slice(content),
        };
        self.asm.ready.push_back(Match {
            content,
            start: open[1],
            end: close[0],
        });
        ControlFlow::Continue(())
    }
}

/// What the stream adapter and the codec share: the cap's counts and the assembler, put
/// together around each chunk as it is scanned.
#[derive(Debug)]
pub(crate) struct Assembly {
    cap: Capped<()>,
    asm: Assembler,
}

impl Assembly {
    pub(crate) fn new(options: Options) -> Assembly {
        Assembly {
            cap: Capped::new((), options.max_matches.unwrap_or(u64::MAX)),
            asm: Assembler {
                content: Content::Empty,
                owned: BytesMut::new(),
                len: 0,
                start: Pos::default(),
                max_match_bytes: options.max_match_bytes,
                ready: VecDeque::new(),
                too_large: None,
            },
        }
    }

    /// Feeds one chunk to `scanner`, queueing the matches it completes: one inside the chunk
    /// shares its memory; one still open afterwards is copied so the chunk can go.
    /// `Ok(Break)`: nothing more needs reading (the cap and truncation are known).
    pub(crate) fn feed(
        &mut self,
        scanner: &mut Scanner,
        chunk: &Bytes,
    ) -> Result<ControlFlow<()>, Stop> {
        let fed = self.scan(scanner, chunk, |scanner, sink| scanner.feed(chunk, sink));
        self.asm.detach(chunk);
        match fed {
            Err(e) => Err(Stop::Scan(e)),
            Ok(flow) => match self.asm.too_large.take() {
                Some(start) => Err(Stop::TooLarge {
                    start,
                    limit: self.asm.max_match_bytes,
                }),
                None => Ok(flow),
            },
        }
    }

    /// The input ended: [`Scanner::finish`].
    pub(crate) fn finish(&mut self, scanner: &mut Scanner) -> Result<(), ScanError> {
        self.scan(scanner, &Bytes::new(), |scanner, sink| scanner.finish(sink))
    }

    /// Runs `f` with the cap around the assembler fed `chunk`.
    fn scan<R>(
        &mut self,
        scanner: &mut Scanner,
        chunk: &Bytes,
        f: impl FnOnce(&mut Scanner, &mut Capped<Feeding<'_>>) -> R,
    ) -> R {
        let asm = &mut self.asm;
        let mut sink = self.cap.lend(Feeding { asm, chunk });
        let r = f(scanner, &mut sink);
        self.cap.take_counts(&sink);
        r
    }

    /// The next match completed, in input order.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Match> {
        self.asm.ready.pop_front()
    }

    /// Whether no completed match waits to be handed out.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.asm.ready.is_empty()
    }

    /// Bytes held for the open match (its owned copy; slices share the chunk).
    #[inline]
    pub(crate) fn held(&self) -> usize {
        self.asm.owned.len()
    }

    /// See [`Capped::truncated`].
    #[inline]
    pub(crate) fn truncated(&self) -> bool {
        self.cap.truncated()
    }

    /// See [`Capped::delivered`].
    #[inline]
    pub(crate) fn delivered(&self) -> u64 {
        self.cap.delivered()
    }
}
