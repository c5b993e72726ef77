//! The general path: `memmem` plus the resume across chunks. It decides every input the fast
//! paths leave (and on targets without vector kernels, all of it); it alone holds a marker
//! prefix across a chunk boundary.

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
