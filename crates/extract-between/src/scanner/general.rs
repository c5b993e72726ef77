//! The general path: `memmem` plus the resume across chunks. It decides every input the fast
//! paths leave (and on targets without vector kernels, all of it); it alone holds a marker
//! prefix across a chunk boundary.

use super::*;

impl Scanner {
    /// The marker sought now: the end marker inside a match, else the start marker.
    pub(super) fn sought(&self) -> (bool, &Needle) {
        match self.state {
            State::Inside => (true, &self.end),
            _ => (false, &self.start),
        }
    }

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
        let (inside, needle) = self.sought();
        if self.held != 0 || data.len() >= needle.bytes().len() || !data.is_ascii() {
            return None;
        }
        let held = needle.tail_prefix(data);
        let decided = &data[..data.len() - held];
        if inside && deliver(&mut self.state, decided, sink).is_break() {
            return Some(ControlFlow::Break(()));
        }
        self.held = held;
        self.scanned = Counter::new(self.scanned, Units::of(sink, true)).pos(data, data.len());
        Some(ControlFlow::Continue(()))
    }

    /// Scans one whole character, cut by the last chunk boundary. With nothing held, it can
    /// only matter to the marker sought if that marker begins with it; otherwise it is passed
    /// (as content, inside a match) without the general path's setup (a `memmem` search, a
    /// count of units), which cost more than the character.
    pub(super) fn pass_character<S: Sink + ?Sized>(
        &mut self,
        character: &[u8],
        sink: &mut S,
    ) -> ControlFlow<()> {
        let (inside, needle) = self.sought();
        if self.held > 0 || needle.bytes().starts_with(character) {
            return self.scan(character, false, sink);
        }
        if inside && deliver(&mut self.state, character, sink).is_break() {
            return ControlFlow::Break(());
        }
        self.scanned =
            Counter::new(self.scanned, Units::of(sink, false)).pos(character, character.len());
        ControlFlow::Continue(())
    }

    /// Scans `data`, which is valid UTF-8 made of whole characters (`ascii`: known to be
    /// ASCII only): every occurrence is reported as the fast paths report theirs, and the
    /// longest suffix that begins the marker sought is held.
    pub(super) fn scan<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        ascii: bool,
        sink: &mut S,
    ) -> ControlFlow<()> {
        let mut at = Counter::new(self.scanned, Units::of(sink, ascii));
        let mut run = Run::new(self.state == State::Inside);
        let (x, flow) = self.search(data, sink, &mut at, &mut run);
        let (_, flow) = self.hand_over(data, sink, (x, at.pos(data, x)), flow, run);
        // The held bytes count as scanned.
        self.scanned = at.pos(data, data.len());
        flow
    }

    /// The search of [`Scanner::scan`]: reports each occurrence of the marker sought in turn
    /// into `run`, then holds the tail that may begin one. Returns where the undecided bytes
    /// begin (the held ones, or where the sink stopped the scan).
    fn search<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
        at: &mut Counter,
        run: &mut Run,
    ) -> Walked {
        // `i`: where the search for the current marker resumes in `data`.
        let mut i = 0;
        loop {
            let needle = if run.inside { &self.end } else { &self.start };
            let bytes = needle.bytes();
            // Where an occurrence of the marker ends (`data[..x]`).
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
                // They are content of a match opened in an earlier slice, so they come
                // before anything of this one.
                let candidate = held + (j - i) - p;
                let decided = candidate.min(held);
                if run.inside
                    && decided > 0
                    && deliver(&mut self.state, &bytes[..decided], sink).is_break()
                {
                    return (i, ControlFlow::Break(()));
                }
                self.held = 0;
                if complete {
                    // An occurrence completing here started within the held bytes.
                    j
                } else if p <= j - i {
                    // The candidate starts in `data`; what precedes it is decided too.
                    i = j - p;
                    continue;
                } else {
                    // `data` ran out while the candidate still starts in the held bytes: it
                    // is now `bytes[..p]`, all of `data[i..]` included.
                    self.held = p;
                    return (i, ControlFlow::Continue(()));
                }
            } else {
                match needle.finder.find(&data[i..]) {
                    Some(k) => i + k + bytes.len(),
                    None => {
                        self.held = needle.tail_prefix(&data[i..]);
                        return (data.len() - self.held, ControlFlow::Continue(()));
                    }
                }
            };
            let end = at.pos(data, x);
            let begin = Pos {
                byte: end.byte - bytes.len() as u64,
                // 0 stays 0 when the sink declined UTF-16 offsets.
                utf16: end.utf16.saturating_sub(needle.utf16_len),
            };
            // An occurrence that began in the held bytes begins, within `data`, at 0.
            let q = x.saturating_sub(bytes.len());
            i = x;
            let flow = self.report(data, sink, [q, x], [begin, end], run);
            if flow.is_break() {
                return (x, flow);
            }
        }
    }
}
