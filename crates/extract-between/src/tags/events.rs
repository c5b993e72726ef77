//! A tag set's events: [`TagEvents`] is the [`TagSink`] that queues the scanner's calls as
//! [`TagEvent`]s, the form every binding hands its users.

use super::TagSink;
use crate::scanner::Pos;
use core::ops::ControlFlow;
use std::collections::VecDeque;

/// One step of a tagged text, with its span in the whole input (bytes and UTF-16 code units).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagEvent {
    /// Text outside every match (whole characters, never empty).
    Outside {
        /// The piece.
        text: String,
        /// Where it begins and ends.
        span: [Pos; 2],
    },
    /// Pair `tag`'s start marker.
    Open {
        /// The pair's index in the set.
        tag: usize,
        /// Where the marker begins and ends.
        span: [Pos; 2],
    },
    /// The next piece of a match of pair `tag` (whole characters, never empty).
    Text {
        /// The pair's index in the set.
        tag: usize,
        /// The piece.
        text: String,
        /// Where it begins and ends.
        span: [Pos; 2],
    },
    /// Pair `tag`'s end marker.
    Close {
        /// The pair's index in the set.
        tag: usize,
        /// Where the marker begins and ends.
        span: [Pos; 2],
    },
}

impl TagEvent {
    /// `"outside"`, `"open"`, `"text"` or `"close"`.
    ///
    /// ```
    /// use extract_between::{Pos, tags::TagEvent};
    /// assert_eq!(TagEvent::Open { tag: 0, span: [Pos::default(); 2] }.kind(), "open");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            TagEvent::Outside { .. } => "outside",
            TagEvent::Open { .. } => "open",
            TagEvent::Text { .. } => "text",
            TagEvent::Close { .. } => "close",
        }
    }

    /// The pair's index; `None` for outside text.
    ///
    /// ```
    /// use extract_between::{Pos, tags::TagEvent};
    /// assert_eq!(TagEvent::Close { tag: 2, span: [Pos::default(); 2] }.tag(), Some(2));
    /// ```
    pub fn tag(&self) -> Option<usize> {
        match self {
            TagEvent::Outside { .. } => None,
            TagEvent::Open { tag, .. }
            | TagEvent::Text { tag, .. }
            | TagEvent::Close { tag, .. } => Some(*tag),
        }
    }

    /// The piece of text (`outside`, `text`); `None` for markers.
    ///
    /// ```
    /// use extract_between::{Pos, tags::TagEvent};
    /// let e = TagEvent::Outside { text: "hi".into(), span: [Pos::default(); 2] };
    /// assert_eq!(e.text(), Some("hi"));
    /// ```
    pub fn text(&self) -> Option<&str> {
        match self {
            TagEvent::Outside { text, .. } | TagEvent::Text { text, .. } => Some(text),
            TagEvent::Open { .. } | TagEvent::Close { .. } => None,
        }
    }

    /// Where the event's marker or piece begins and ends.
    ///
    /// ```
    /// use extract_between::{Pos, tags::TagEvent};
    /// let span = [Pos { byte: 1, utf16: 1 }, Pos { byte: 4, utf16: 2 }];
    /// assert_eq!(TagEvent::Open { tag: 0, span }.span(), span);
    /// ```
    pub fn span(&self) -> [Pos; 2] {
        match self {
            TagEvent::Outside { span, .. }
            | TagEvent::Open { span, .. }
            | TagEvent::Text { span, .. }
            | TagEvent::Close { span, .. } => *span,
        }
    }
}

/// The sink that queues events; [`drain`](Self::drain) them after each `feed`. It holds no
/// text beyond the events not yet drained.
///
/// ```
/// use extract_between::tags::{TagEvents, TagScanner, TagSet};
/// let tags = TagSet::new([("[", "]")]).unwrap();
/// let mut scanner = TagScanner::new(&tags);
/// let mut sink = TagEvents::without_outside();
/// scanner.feed(b"a[b]c", &mut sink).unwrap();
/// let kinds: Vec<_> = sink.drain().map(|e| e.kind()).collect();
/// assert_eq!(kinds, ["open", "text", "close"]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct TagEvents {
    queue: VecDeque<TagEvent>,
    skip_outside: bool,
}

impl TagEvents {
    /// A sink that queues every event, outside text included.
    ///
    /// ```
    /// assert!(extract_between::tags::TagEvents::new().is_empty());
    /// ```
    pub fn new() -> TagEvents {
        TagEvents::default()
    }

    /// A sink that queues the matches' events alone (no `Outside`).
    ///
    /// ```
    /// assert!(extract_between::tags::TagEvents::without_outside().is_empty());
    /// ```
    pub fn without_outside() -> TagEvents {
        TagEvents {
            queue: VecDeque::new(),
            skip_outside: true,
        }
    }

    /// Takes the queued events, oldest first.
    ///
    /// ```
    /// let mut sink = extract_between::tags::TagEvents::new();
    /// assert_eq!(sink.drain().count(), 0);
    /// ```
    pub fn drain(&mut self) -> std::collections::vec_deque::Drain<'_, TagEvent> {
        self.queue.drain(..)
    }

    /// Takes the oldest queued event.
    ///
    /// ```
    /// assert!(extract_between::tags::TagEvents::new().pop().is_none());
    /// ```
    pub fn pop(&mut self) -> Option<TagEvent> {
        self.queue.pop_front()
    }

    /// How many events are queued.
    ///
    /// ```
    /// assert_eq!(extract_between::tags::TagEvents::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no event is queued.
    ///
    /// ```
    /// assert!(extract_between::tags::TagEvents::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    fn push(&mut self, event: TagEvent) -> ControlFlow<()> {
        self.queue.push_back(event);
        ControlFlow::Continue(())
    }
}

impl TagSink for TagEvents {
    fn outside(&mut self, text: &str, span: [Pos; 2]) -> ControlFlow<()> {
        if self.skip_outside {
            return ControlFlow::Continue(());
        }
        self.push(TagEvent::Outside {
            text: text.to_owned(),
            span,
        })
    }
    fn open(&mut self, tag: usize, span: [Pos; 2]) -> ControlFlow<()> {
        self.push(TagEvent::Open { tag, span })
    }
    fn text(&mut self, tag: usize, text: &str, span: [Pos; 2]) -> ControlFlow<()> {
        self.push(TagEvent::Text {
            tag,
            text: text.to_owned(),
            span,
        })
    }
    fn close(&mut self, tag: usize, span: [Pos; 2]) -> ControlFlow<()> {
        self.push(TagEvent::Close { tag, span })
    }
}
