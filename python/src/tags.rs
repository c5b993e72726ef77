//! `Tags` and `TagScanner`: several marker pairs followed in one pass, and the text outside
//! them, on the library's tag set. The package's `Tags` (in `_tags.py`) adds `iter_events`
//! and `aiter_events` to this class.

use crate::events::Event;
use crate::{detach, errors, input};
use core::ops::ControlFlow;
use extract_between::ScanError;
use extract_between::tags::{
    MAX_TAGS, TagError, TagEvents, TagMatch, TagScanner as Scanner, TagSet,
};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

/// Chunks are fed in pieces of this size, with Ctrl-C checked between them.
const PIECE_BYTES: usize = 1 << 20;

/// A set of 1 to 64 marker pairs ``(start, end)`` followed in one pass: from each position
/// the leftmost start marker opens a match (the longest where several begin at one place)
/// and that pair's end marker closes it. Start markers must be distinct; an end may repeat
/// or equal any start. One pair is exactly the card's pair.
///
/// >>> from extract_between import Tags
/// >>> tags = Tags([("<think>", "</think>"), ("<tool_call>", "</tool_call>")])
/// >>> tags.findall("<think>2+2?</think>It is 4.<tool_call>{}</tool_call>")
/// [(0, '2+2?'), (1, '{}')]
#[pyclass(frozen, subclass, module = "extract_between._native", name = "Tags")]
pub struct Tags {
    set: TagSet,
}

#[pymethods]
impl Tags {
    #[new]
    fn new(py: Python<'_>, pairs: &Bound<'_, PyAny>) -> PyResult<Tags> {
        if pairs.is_instance_of::<PyString>() || pairs.is_instance_of::<PyBytes>() {
            return Err(errors::wrong_type(
                "pairs",
                "a sequence of (start, end) pairs",
                pairs,
            ));
        }
        let mut checked = Vec::new();
        let mut items = pairs.try_iter()?;
        for (i, pair) in items.by_ref().enumerate() {
            if i == MAX_TAGS {
                // Counted, not converted: the set is refused whatever the rest holds.
                let count = MAX_TAGS + 1 + items.by_ref().count();
                let error = TagError::TooMany { count };
                return Err(errors::invalid_input(py, "pairs", &error.to_string()));
            }
            let pair = pair?;
            let items: Vec<Bound<'_, PyAny>> = match pair.cast::<PyTuple>() {
                Ok(tuple) => tuple.iter().collect(),
                Err(_) => match pair.cast::<PyList>() {
                    Ok(list) => list.iter().collect(),
                    Err(_) => vec![],
                },
            };
            let [start, end] = &items[..] else {
                return Err(errors::wrong_type(
                    &format!("pairs[{i}]"),
                    "a (start, end) tuple",
                    &pair,
                ));
            };
            let marker = |name: String, value: &Bound<'_, PyAny>| -> PyResult<String> {
                let bytes = input::marker_arg(py, &name, value)?;
                Ok(input::as_str(py, &name, &bytes)?.to_owned())
            };
            checked.push((
                marker(format!("pairs[{i}][0]"), start)?,
                marker(format!("pairs[{i}][1]"), end)?,
            ));
        }
        TagSet::new(checked)
            .map(|set| Tags { set })
            .map_err(|e| errors::invalid_input(py, "pairs", &e.to_string()))
    }

    /// Every match of `text` (a ``str``, or ``bytes`` holding UTF-8), in order, as
    /// ``(pair index, text)``. A start marker with no end after it raises
    /// `UnclosedStartMarker` with the matches before it on ``.matches`` and the pair on
    /// ``.tag``.
    ///
    /// >>> from extract_between import Tags
    /// >>> Tags([("[", "]"), ("(", ")")]).findall("a(b)[c]")
    /// [(1, 'b'), (0, 'c')]
    fn findall<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let given;
        let text = if let Ok(bytes) = text.cast::<PyBytes>() {
            input::as_str(py, "text", bytes)?
        } else {
            given = input::text_arg(py, "text", text)?;
            given.as_str(py, "text")?
        };
        let set = &self.set;
        match detach::if_long(py, text.len(), || set.find_all(text)) {
            Ok(found) => PyList::new(py, pairs(&found)),
            Err(e) => Err(errors::tag_unclosed(
                py,
                e.marker,
                e.tag,
                PyList::new(py, pairs(&e.matches))?,
            )),
        }
    }

    /// A resumable scanner of this set: `feed` it chunks, then `finish`; with `outside`,
    /// its events include the text outside every match (``"outside"``).
    ///
    /// >>> from extract_between import Tags
    /// >>> s = Tags([("<think>", "</think>")]).scanner(outside=True)
    /// >>> [(e.kind, e.text) for e in s.feed("<think>hm</think>Hi")]
    /// [('open', None), ('text', 'hm'), ('close', None), ('outside', 'Hi')]
    #[pyo3(signature = (outside = false))]
    fn scanner(&self, outside: bool) -> TagScanner {
        TagScanner {
            scanner: Box::new(Scanner::new(&self.set)),
            sink: if outside {
                TagEvents::new()
            } else {
                TagEvents::without_outside()
            },
            ended: None,
        }
    }

    /// The pairs, as given (markers as ``str``).
    ///
    /// >>> from extract_between import Tags
    /// >>> Tags([("[", "]")]).pairs
    /// [('[', ']')]
    #[getter]
    fn pairs(&self) -> Pairs {
        self.set
            .pairs()
            .iter()
            .map(|m| (m.start().to_owned(), m.end().to_owned()))
            .collect()
    }

    /// Pickling and `copy`: the class and its pairs.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (Pairs,))> {
        Ok((slf.get_type().into_any(), (slf.get().pairs(),)))
    }

    fn __len__(&self) -> usize {
        self.set.len()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Tags({})", self.pairs().into_pyobject(py)?.repr()?))
    }
}

/// A `Tags` set's resumable scanner: `feed` each chunk as it arrives (``str`` tokens or bytes
/// cut anywhere) and it answers the `Event`s the chunk decided; then `finish`. It holds only
/// the bytes that may begin the marker sought (at most the longest marker) and a character
/// cut between chunks. `finish` raises `UnclosedStartMarker` for a start with no end, with
/// the last events on ``.events`` and the pair on ``.tag``.
///
/// >>> from extract_between import Tags
/// >>> s = Tags([("<think>", "</think>")]).scanner(outside=True)
/// >>> [(e.kind, e.tag, e.text) for e in s.feed("<thi")]
/// []
/// >>> [(e.kind, e.tag, e.text) for e in s.feed("nk>hm")]
/// [('open', 0, None), ('text', 0, 'hm')]
/// >>> s.finish()
/// Traceback (most recent call last):
///     ...
/// extract_between.UnclosedStartMarker: unclosed start marker at UTF-16 offset 0 (byte offset 0)
#[pyclass(module = "extract_between._native", skip_from_py_object)]
pub struct TagScanner {
    scanner: Box<Scanner>,
    sink: TagEvents,
    ended: Option<&'static str>,
}

#[pymethods]
impl TagScanner {
    /// Scans the next chunk (a ``str``, or bytes-like); answers the events it decided.
    ///
    /// >>> from extract_between import Tags
    /// >>> [e.kind for e in Tags([("[", "]")]).scanner().feed(b"a[b")]
    /// ['open', 'text']
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        chunk: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.check("feed")?;
        let chunk = input::chunk_arg(py, "chunk", chunk)?;
        let bytes = chunk.as_bytes()?;
        let mut result = Ok(());
        for (i, piece) in bytes.chunks(PIECE_BYTES).enumerate() {
            if i > 0
                && let Err(e) = py.check_signals()
            {
                self.ended = Some("it was interrupted");
                return Err(e);
            }
            let (scanner, sink) = (&mut self.scanner, &mut self.sink);
            match detach::if_long(py, piece.len(), || scanner.feed(piece, sink)) {
                Ok(ControlFlow::Continue(())) => {}
                Ok(ControlFlow::Break(())) => break,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.answer(py, result)
    }

    /// Ends the input: answers the last events, or raises `UnclosedStartMarker` (with them
    /// on ``.events``, the pair on ``.tag``) for a start marker with no end after it.
    ///
    /// >>> from extract_between import Tags
    /// >>> s = Tags([("[", "]"), ("(", ")")]).scanner()
    /// >>> [e.kind for e in s.feed("[a] (b")]
    /// ['open', 'text', 'close', 'open', 'text']
    /// >>> try:
    /// ...     s.finish()
    /// ... except Exception as e:
    /// ...     print(type(e).__name__, e.tag, e.offset)
    /// UnclosedStartMarker 1 4
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.check("finish")?;
        let result = self.scanner.finish(&mut self.sink);
        if result.is_ok() {
            self.ended = Some("finish() ended its input");
        }
        self.answer(py, result)
    }

    /// Bytes decided so far, in UTF-8 bytes (what the scanner carries is not counted).
    #[getter]
    fn byte_position(&self) -> u64 {
        self.scanner.position().byte
    }
}

impl TagScanner {
    fn check(&self, method: &str) -> PyResult<()> {
        match self.ended {
            None => Ok(()),
            Some(why) => Err(errors::ended("TagScanner", "a", method, why)),
        }
    }

    fn answer<'py>(
        &mut self,
        py: Python<'py>,
        result: Result<(), ScanError>,
    ) -> PyResult<Bound<'py, PyList>> {
        let events = PyList::empty(py);
        for event in self.sink.drain() {
            events.append(Event::from_tag_event(py, event))?;
        }
        match result {
            Ok(()) => Ok(events),
            Err(e) => {
                self.ended = Some("it raised an error");
                Err(errors::tag_scan_error(
                    py,
                    &e,
                    self.scanner.open_tag(),
                    events,
                ))
            }
        }
    }
}

/// A set's pairs as Python gives and gets them.
type Pairs = Vec<(String, String)>;

/// Matches as `(pair, text)` tuples, for a list.
fn pairs<'f, 't>(
    found: &'f [TagMatch<'t>],
) -> impl ExactSizeIterator<Item = (usize, &'t str)> + 'f {
    found.iter().map(|m| (m.tag, m.text))
}
