//! Where matches reach the [`Sink`]: every path reports a found marker through
//! [`Scanner::report`], ends its run over a slice with [`Scanner::hand_over`], and passes
//! content outside a run with [`deliver`].

use super::*;

impl Scanner {
    /// Reports the needle sought found at `data[q..i]` (`[q, i]`, at positions `[begin,
    /// end]`): a match opened (its `open` held back in `run`), or closed: as one
    /// [`Sink::matched`] call when it opened in this run, else the content from `run.from`
    /// and `close`.
    #[inline(always)]
    pub(super) fn report<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
        [q, i]: [usize; 2],
        [begin, end]: [Pos; 2],
        run: &mut Run,
    ) -> ControlFlow<()> {
        run.inside = !run.inside;
        if run.inside {
            self.open_marker = begin;
            run.from = i;
            // Held back: where the content begins (the marker's start is `open_marker`).
            (run.held, run.content) = (true, end);
            ControlFlow::Continue(())
        } else if run.held {
            run.held = false;
            let open = [self.open_marker, run.content];
            sink.matched(open, &data[run.from..q], [begin, end])
        } else if q > run.from && sink.content(&data[run.from..q]).is_break() {
            ControlFlow::Break(())
        } else {
            sink.close(begin, end)
        }
    }

    /// Ends a fast path's run at `data[x]` (`(x, at)`, at position `at`) after `flow`:
    /// delivers the open match's held-back `open` and its content from `run.from` up to it,
    /// and records where the scan stands. Returns how much of `data` was decided and the flow.
    #[inline(always)]
    pub(super) fn hand_over<S: Sink + ?Sized>(
        &mut self,
        data: &[u8],
        sink: &mut S,
        (x, at): (usize, Pos),
        mut flow: ControlFlow<()>,
        run: Run,
    ) -> Walked {
        let Run {
            inside,
            from,
            held,
            content,
        } = run;
        // Only a sink call breaks, and none is made while an `open` is held back.
        if held && flow.is_continue() {
            flow = sink.open(self.open_marker, content);
        }
        if flow.is_continue() && inside && x > from {
            flow = sink.content(&data[from..x]);
        }
        self.scanned = at;
        self.state = match (flow, inside) {
            (ControlFlow::Break(()), _) => State::Stopped,
            (_, true) => State::Inside,
            (_, false) => State::Seek,
        };
        (x, flow)
    }
}

/// Where a run over one slice stands between events.
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

/// Passes `content` of the open match to the sink; a stop ends the scan (`state`).
pub(super) fn deliver<S: Sink + ?Sized>(
    state: &mut State,
    content: &[u8],
    sink: &mut S,
) -> ControlFlow<()> {
    let flow = sink.content(content);
    if flow.is_break() {
        *state = State::Stopped;
    }
    flow
}
