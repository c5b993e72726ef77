//! The tag events stream: a [`TagSet`]'s [`TagEvent`]s over a stream of byte chunks.

use super::Error;
use super::queued::{Drive, Queue};
use crate::scanner::ScanError;
use crate::tags::{TagEvent, TagEvents, TagScanner, TagSet};
use bytes::Bytes;
use core::fmt;
use core::pin::Pin;
use core::task::{Context, Poll};
use futures_core::Stream;
use futures_core::stream::FusedStream;

/// A stream of [`TagEvent`]s over a stream of byte chunks: build it with [`tag_events`].
pub struct TagEventStream<S> {
    drive: Drive<S>,
    queue: Tagged,
}

/// The tag scanner and its events.
struct Tagged {
    scanner: TagScanner,
    sink: TagEvents,
}

impl Queue for Tagged {
    type Item = TagEvent;
    fn pop(&mut self) -> Option<TagEvent> {
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

impl<S> fmt::Debug for TagEventStream<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TagEventStream")
            .field("scanner", &self.queue.scanner)
            .field("queued", &self.queue.sink.len())
            .field("done", &self.drive.done)
            .finish_non_exhaustive()
    }
}

/// The events of a tag set in a stream of `Bytes` chunks (a model's streamed reply), each
/// yielded as soon as the chunk that decides it has arrived; with `outside`, the text outside
/// every match too. An unclosed start marker at the end is the stream's last item, an error
/// (the scanner's [`open_tag`](TagScanner::open_tag) is the pair: the last events name it).
///
/// The source must be `Unpin`; pin other streams with `Box::pin`.
///
/// ```
/// use bytes::Bytes;
/// use extract_between::stream::tag_events;
/// use extract_between::tags::{TagEvent, TagSet};
/// use futures::{StreamExt, executor::block_on, stream};
///
/// let tokens = ["<think>hm</th", "ink>The answer", " is 42."];
/// let source = stream::iter(tokens.map(|t| Ok::<_, std::io::Error>(Bytes::from(t))));
/// let tags = TagSet::new([("<think>", "</think>")]).unwrap();
/// let shown: Vec<String> = block_on(
///     tag_events(source, &tags, true)
///         .filter_map(|e| async move {
///             match e.unwrap() {
///                 TagEvent::Outside { text, .. } => Some(text),
///                 _ => None,
///             }
///         })
///         .collect(),
/// );
/// assert_eq!(shown, ["The answer", " is 42."]);
/// ```
pub fn tag_events<S, E>(source: S, tags: &TagSet, outside: bool) -> TagEventStream<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    TagEventStream {
        drive: Drive::new(source),
        queue: Tagged {
            scanner: TagScanner::new(tags),
            sink: if outside {
                TagEvents::new()
            } else {
                TagEvents::without_outside()
            },
        },
    }
}

impl<S> TagEventStream<S> {
    /// Bytes held between chunks: the scanner's carry (bounded by the longest marker and a
    /// cut character).
    ///
    /// ```
    /// # use extract_between::stream::TagEventStream;
    /// # fn f<S>(s: &TagEventStream<S>) -> usize { s.buffered_bytes() }
    /// ```
    pub fn buffered_bytes(&self) -> usize {
        self.queue.scanner.buffered()
    }
}

/// Fused: after its last event (and its error, if any) it yields `None`.
///
/// ```
/// use bytes::Bytes;
/// use extract_between::{stream::tag_events, tags::TagSet};
/// use futures::{StreamExt, executor::block_on, stream::{self, FusedStream}};
///
/// let source = stream::iter([Ok::<_, std::io::Error>(Bytes::from("[a"))]);
/// let mut all = tag_events(source, &TagSet::new([("[", "]")]).unwrap(), false);
/// assert_eq!(block_on(all.next()).unwrap().unwrap().kind(), "open");
/// assert_eq!(block_on(all.next()).unwrap().unwrap().kind(), "text");
/// assert!(block_on(all.next()).unwrap().is_err()); // the unclosed start marker
/// assert!(all.is_terminated() && block_on(all.next()).is_none());
/// ```
impl<S, E> FusedStream for TagEventStream<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    fn is_terminated(&self) -> bool {
        self.drive.is_terminated(&self.queue)
    }
}

impl<S, E> Stream for TagEventStream<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    type Item = Result<TagEvent, Error<E>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        this.drive.poll(&mut this.queue, cx)
    }
}
