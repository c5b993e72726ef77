//! What the two event streams share: a scanner whose sink queues events, driven by a source of
//! chunks — the queue emptied before the source is polled again, an error yielded after the
//! events before it, the source dropped at its end.

use super::Error;
use crate::scanner::ScanError;
use bytes::Bytes;
use core::pin::Pin;
use core::task::{Context, Poll};
use futures_core::Stream;

/// A scanner and the sink that queues its events.
pub(super) trait Queue {
    type Item;
    /// The oldest queued event.
    fn pop(&mut self) -> Option<Self::Item>;
    /// Whether no event is queued.
    fn is_empty(&self) -> bool;
    /// Scans the next chunk.
    fn feed(&mut self, chunk: &[u8]) -> Result<(), ScanError>;
    /// Ends the input.
    fn finish(&mut self) -> Result<(), ScanError>;
}

/// The source, and how far the stream has come.
pub(super) struct Drive<S> {
    source: Option<S>,
    /// A terminal error, yielded after the events before it.
    pending: Option<ScanError>,
    pub(super) done: bool,
}

impl<S> Drive<S> {
    pub(super) fn new(source: S) -> Drive<S> {
        Drive {
            source: Some(source),
            pending: None,
            done: false,
        }
    }

    /// Whether the stream has yielded everything, its error included.
    pub(super) fn is_terminated(&self, queue: &impl Queue) -> bool {
        self.done && self.pending.is_none() && queue.is_empty()
    }

    /// The stream's next item: a queued event, else the pending error, else what the next
    /// chunk decides.
    pub(super) fn poll<E, Q: Queue>(
        &mut self,
        queue: &mut Q,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Q::Item, Error<E>>>>
    where
        S: Stream<Item = Result<Bytes, E>> + Unpin,
    {
        loop {
            if let Some(event) = queue.pop() {
                return Poll::Ready(Some(Ok(event)));
            }
            if let Some(e) = self.pending.take() {
                return Poll::Ready(Some(Err(Error::Scan(e))));
            }
            if self.done {
                return Poll::Ready(None);
            }
            let Some(source) = self.source.as_mut() else {
                self.done = true;
                continue;
            };
            match Pin::new(source).poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(chunk))) => {
                    if let Err(e) = queue.feed(&chunk) {
                        self.end(Some(e));
                    }
                }
                Poll::Ready(Some(Err(e))) => {
                    self.end(None);
                    return Poll::Ready(Some(Err(Error::Upstream(e))));
                }
                Poll::Ready(None) => {
                    let result = queue.finish();
                    self.end(result.err());
                }
            }
        }
    }

    fn end(&mut self, error: Option<ScanError>) {
        self.source = None;
        self.done = true;
        self.pending = error;
    }
}
