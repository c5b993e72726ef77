//! The events stream: [`Event`]s over a stream of byte chunks, as the chunks arrive.

use super::Error;
use super::queued::{Drive, Queue};
use crate::events::{Event, EventSink};
use crate::markers::Markers;
use crate::scanner::{ScanError, Scanner};
use bytes::Bytes;
use core::fmt;
use core::pin::Pin;
use core::task::{Context, Poll};
use futures_core::Stream;
use futures_core::stream::FusedStream;

/// A stream of [`Event`]s over a stream of byte chunks: build it with [`events()`].
pub struct EventStream<S> {
    drive: Drive<S>,
    queue: Events,
}

/// The scanner and its events.
struct Events {
    scanner: Scanner,
    sink: EventSink,
}

impl Queue for Events {
    type Item = Event;
    fn pop(&mut self) -> Option<Event> {
        self.sink.pop()
    }
    fn is_empty(&self) -> bool {
        self.sink.is_empty()
    }
    fn feed(&mut self, chunk: &[u8]) -> Result<(), ScanError> {
        self.scanner.feed(chunk, &mut self.sink).map(|_| ())
    }
    fn finish(&mut self) -> Result<(), ScanError> {
        self.scanner.finish(&mut self.sink)
    }
}

impl<S> fmt::Debug for EventStream<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventStream")
            .field("scanner", &self.queue.scanner)
            .field("queued", &self.queue.sink.len())
            .field("done", &self.drive.done)
            .finish_non_exhaustive()
    }
}

/// The events of the matches in a stream of `Bytes` chunks (a language model's streamed
/// answer, an HTTP body), each yielded as soon as the chunk that decides it has arrived: a
/// match's `Open`, its content as `Text` pieces (whole characters), its `Close`. Nothing of a
/// match is held, so an open match of any size costs nothing; an unclosed start marker at
/// the end is the stream's last item, an error, after the events before it.
///
/// The source must be `Unpin`; pin other streams with `Box::pin`.
///
/// # Examples
///
/// ```
/// use bytes::Bytes;
/// use extract_between::{Markers, events::Event, stream::events};
/// use futures::{StreamExt, executor::block_on, stream};
///
/// let tokens = ["<think>hm</think>The ", "answer: <ans", "wer>4", "2</answer>"];
/// let source = stream::iter(tokens.map(|t| Ok::<_, std::io::Error>(Bytes::from(t))));
/// let answer = Markers::new("<answer>", "</answer>").unwrap();
/// let texts: Vec<String> = block_on(
///     events(source, &answer)
///         .filter_map(|e| async move {
///             match e.unwrap() {
///                 Event::Text { text, .. } => Some(text),
///                 _ => None,
///             }
///         })
///         .collect(),
/// );
/// assert_eq!(texts, ["4", "2"]); // "4" is shown before "2</answer>" arrives
/// ```
pub fn events<S, E>(source: S, markers: &Markers) -> EventStream<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    EventStream {
        drive: Drive::new(source),
        queue: Events {
            scanner: Scanner::new(markers),
            sink: EventSink::new(),
        },
    }
}

impl<S> EventStream<S> {
    /// Bytes held between chunks: the scanner's carry-over (bounded by the markers) and a
    /// character cut between chunks.
    ///
    /// ```
    /// # use extract_between::stream::EventStream;
    /// # fn f<S>(s: &EventStream<S>) -> usize { s.buffered_bytes() }
    /// ```
    pub fn buffered_bytes(&self) -> usize {
        self.queue.scanner.buffered() + self.queue.sink.held()
    }
}

/// Fused: after its last event (and its error, if any) it yields `None` and never polls its
/// source again.
///
/// ```
/// use bytes::Bytes;
/// use extract_between::{Markers, stream::events};
/// use futures::{StreamExt, executor::block_on, stream::{self, FusedStream}};
///
/// let source = stream::iter([Ok::<_, std::io::Error>(Bytes::from("[a"))]);
/// let mut all = events(source, &Markers::new("[", "]").unwrap());
/// assert_eq!(block_on(all.next()).unwrap().unwrap().kind(), "open");
/// assert_eq!(block_on(all.next()).unwrap().unwrap().kind(), "text");
/// assert!(block_on(all.next()).unwrap().is_err()); // the unclosed start marker
/// assert!(all.is_terminated() && block_on(all.next()).is_none());
/// ```
impl<S, E> FusedStream for EventStream<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    fn is_terminated(&self) -> bool {
        self.drive.is_terminated(&self.queue)
    }
}

impl<S, E> Stream for EventStream<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    type Item = Result<Event, Error<E>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        this.drive.poll(&mut this.queue, cx)
    }
}
