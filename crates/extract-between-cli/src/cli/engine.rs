//! The scanner one input's read loop feeds: the one pair's `Scanner`, or a tag set's
//! `TagScanner` whose calls reach the same printer (each match named by its pair), or whose
//! outside text is printed (`--outside`).

use super::config::Pattern;
use super::printer::Writer;
use core::ops::ControlFlow;
use extract_between::tags::{TagScanner, TagSink};
use extract_between::{Capped, Pos, ScanError, Scanner, Sink};
use std::io::Write;

/// The scanner of one input.
pub(super) enum Engine {
    Pair(Box<Scanner>),
    Tags {
        scanner: Box<TagScanner>,
        outside: bool,
    },
}

impl Engine {
    pub(super) fn new(pattern: &Pattern) -> Engine {
        match pattern {
            Pattern::Pair(markers) => Engine::Pair(Box::new(Scanner::new(markers))),
            Pattern::Tags { set, outside, .. } => Engine::Tags {
                scanner: Box::new(TagScanner::new(set)),
                outside: *outside,
            },
        }
    }

    pub(super) fn feed<W: Write>(
        &mut self,
        chunk: &[u8],
        sink: &mut Capped<&mut Writer<'_, W>>,
    ) -> Result<ControlFlow<()>, ScanError> {
        match self {
            Engine::Pair(scanner) => scanner.feed(chunk, sink),
            Engine::Tags { scanner, outside } => scanner.feed(
                chunk,
                &mut Tagged {
                    sink,
                    outside: *outside,
                },
            ),
        }
    }

    pub(super) fn finish<W: Write>(
        &mut self,
        sink: &mut Capped<&mut Writer<'_, W>>,
    ) -> Result<(), ScanError> {
        match self {
            Engine::Pair(scanner) => scanner.finish(sink),
            Engine::Tags { scanner, outside } => scanner.finish(&mut Tagged {
                sink,
                outside: *outside,
            }),
        }
    }
}

/// A tag scanner's calls as the printer takes them: a match's pair named before its `open`,
/// or (`outside`) only the text outside every match.
struct Tagged<'s, 'a, 'w, W: Write> {
    sink: &'s mut Capped<&'a mut Writer<'w, W>>,
    outside: bool,
}

impl<W: Write> TagSink for Tagged<'_, '_, '_, W> {
    fn outside(&mut self, text: &str, _span: [Pos; 2]) -> ControlFlow<()> {
        match self.outside {
            true => self.sink.get_mut().outside(text.as_bytes()),
            false => ControlFlow::Continue(()),
        }
    }

    fn open(&mut self, tag: usize, [marker, content]: [Pos; 2]) -> ControlFlow<()> {
        if self.outside {
            return ControlFlow::Continue(());
        }
        self.sink.get_mut().tag(tag);
        self.sink.open(marker, content)
    }

    fn text(&mut self, _tag: usize, text: &str, _span: [Pos; 2]) -> ControlFlow<()> {
        match self.outside {
            true => ControlFlow::Continue(()),
            false => self.sink.content(text.as_bytes()),
        }
    }

    fn close(&mut self, _tag: usize, [content_end, marker_end]: [Pos; 2]) -> ControlFlow<()> {
        match self.outside {
            true => ControlFlow::Continue(()),
            false => self.sink.close(content_end, marker_end),
        }
    }
}
