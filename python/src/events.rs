//! `EventScanner` and `Event`: a match's life as the text arrives (a language model's tokens,
//! a socket), on the library's `EventSink`, the same events every binding emits.

use crate::batch::{self, Ended};
use crate::errors;
use crate::input;
use extract_between::events::{Event as Step, EventSink};
use extract_between::tags::TagEvent;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

/// One step of a match's life: ``kind`` is ``"open"`` (its start marker), ``"text"`` (the
/// next piece of its content, whole characters, in ``text``) or ``"close"`` (its end
/// marker); a `Tags` scanner also answers ``"outside"`` (text outside every match, in
/// ``text``) and sets ``tag``, the pair's index (``None`` for outside text, and for an
/// `EventScanner`'s one pair). The offsets span the marker (``"open"``, ``"close"``) or the
/// piece, in UTF-8 bytes and UTF-16 code units from the start of the whole input.
///
/// >>> from extract_between import EventScanner
/// >>> [(e.kind, e.text, e.utf16_start, e.utf16_end) for e in EventScanner("[", "]").feed("😀[é]")]
/// [('open', None, 2, 3), ('text', 'é', 3, 4), ('close', None, 4, 5)]
#[pyclass(frozen, module = "extract_between", skip_from_py_object)]
pub struct Event {
    /// ``"open"``, ``"text"``, ``"close"`` or ``"outside"``.
    #[pyo3(get)]
    kind: Py<PyString>,
    /// The pair's index in a `Tags` set; ``None`` for outside text and `EventScanner`'s.
    #[pyo3(get)]
    tag: Option<usize>,
    /// The piece of content, on ``"text"`` events; ``None`` on the others.
    #[pyo3(get)]
    text: Option<Py<PyString>>,
    /// Where the event's span begins, in UTF-8 bytes.
    #[pyo3(get)]
    byte_start: u64,
    /// Where it ends, in UTF-8 bytes.
    #[pyo3(get)]
    byte_end: u64,
    /// Where it begins, in UTF-16 code units.
    #[pyo3(get)]
    utf16_start: u64,
    /// Where it ends, in UTF-16 code units.
    #[pyo3(get)]
    utf16_end: u64,
}

#[pymethods]
impl Event {
    #[new]
    #[pyo3(signature = (kind, text, byte_start, byte_end, utf16_start, utf16_end, tag=None))]
    fn new(
        kind: Bound<'_, PyString>,
        text: Option<Bound<'_, PyString>>,
        byte_start: u64,
        byte_end: u64,
        utf16_start: u64,
        utf16_end: u64,
        tag: Option<usize>,
    ) -> Event {
        Event {
            kind: kind.unbind(),
            tag,
            text: text.map(Bound::unbind),
            byte_start,
            byte_end,
            utf16_start,
            utf16_end,
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Event(kind={}, text={}, byte_start={}, byte_end={}, utf16_start={}, utf16_end={}{})",
            self.kind.bind(py).repr()?,
            match &self.text {
                Some(t) => t.bind(py).repr()?.to_string(),
                None => "None".to_owned(),
            },
            self.byte_start,
            self.byte_end,
            self.utf16_start,
            self.utf16_end,
            match self.tag {
                Some(tag) => format!(", tag={tag}"),
                None => String::new(),
            }
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(other) = other.cast::<Event>() else {
            return Ok(false);
        };
        self.fields(py)?.eq(other.get().fields(py)?)
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.fields(py)?.hash()
    }

    /// Pickling and `copy`: the class and its constructor's arguments.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        Ok((slf.get_type().into_any(), slf.get().fields(slf.py())?))
    }
}

impl Event {
    /// A tag set's event.
    pub(crate) fn from_tag_event(py: Python<'_>, event: TagEvent) -> Event {
        let kind = match &event {
            TagEvent::Outside { .. } => pyo3::intern!(py, "outside"),
            TagEvent::Open { .. } => pyo3::intern!(py, "open"),
            TagEvent::Text { .. } => pyo3::intern!(py, "text"),
            TagEvent::Close { .. } => pyo3::intern!(py, "close"),
        };
        let ([start, end], tag) = (event.span(), event.tag());
        Event {
            kind: kind.clone().unbind(),
            tag,
            text: event.text().map(|t| PyString::new(py, t).unbind()),
            byte_start: start.byte,
            byte_end: end.byte,
            utf16_start: start.utf16,
            utf16_end: end.utf16,
        }
    }

    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        (
            self.kind.clone_ref(py),
            self.text.as_ref().map(|t| t.clone_ref(py)),
            self.byte_start,
            self.byte_end,
            self.utf16_start,
            self.utf16_end,
            self.tag,
        )
            .into_pyobject(py)
    }

    fn from_step(py: Python<'_>, step: Step) -> Event {
        let (kind, text, [start, end]) = match step {
            Step::Open { marker, content } => (pyo3::intern!(py, "open"), None, [marker, content]),
            Step::Text { text, start, end } => {
                (pyo3::intern!(py, "text"), Some(text), [start, end])
            }
            Step::Close {
                content_end,
                marker_end,
            } => (pyo3::intern!(py, "close"), None, [content_end, marker_end]),
        };
        Event {
            kind: kind.clone().unbind(),
            tag: None,
            text: text.map(|t| PyString::new(py, &t).unbind()),
            byte_start: start.byte,
            byte_end: end.byte,
            utf16_start: start.utf16,
            utf16_end: end.utf16,
        }
    }
}

/// The resumable scanner in its events form: `feed` each chunk as it arrives (``str`` tokens
/// or bytes cut anywhere) and it answers the events the chunk decided, a match's text as it
/// comes, before its end marker; then `finish`. It holds no match text (only a marker's
/// length of carry-over and a character cut between chunks), so a match of any size costs
/// nothing and there is no ``max_match_bytes``.
///
/// `finish` raises `UnclosedStartMarker` for a start marker with no end after it; the events
/// it decided first (the open match's last text) are on the exception's ``.events``.
///
/// >>> from extract_between import EventScanner
/// >>> s = EventScanner("<answer>", "</answer>")
/// >>> [e.text for e in s.feed("The <answer>Forty") if e.kind == "text"]
/// ['Forty']
/// >>> [e.kind for e in s.feed("-two</ans")]
/// ['text']
/// >>> [e.kind for e in s.feed("wer>")]
/// ['close']
/// >>> s.finish()
/// []
#[pyclass(module = "extract_between", skip_from_py_object)]
pub struct EventScanner {
    // Boxed, as `Scanner`'s: its finders hold 32-byte vectors.
    scanner: Box<extract_between::Scanner>,
    sink: EventSink,
    ended: Option<&'static str>,
}

#[pymethods]
impl EventScanner {
    #[new]
    fn new(
        py: Python<'_>,
        start: &Bound<'_, PyAny>,
        end: &Bound<'_, PyAny>,
    ) -> PyResult<EventScanner> {
        let markers = input::markers(py, start, end)?;
        Ok(EventScanner {
            scanner: Box::new(extract_between::Scanner::new(&markers)),
            sink: EventSink::new(),
            ended: None,
        })
    }

    /// Scans the next chunk (a ``str``, or bytes-like); answers the events it decided.
    ///
    /// >>> from extract_between import EventScanner
    /// >>> [e.kind for e in EventScanner("[", "]").feed(b"[a")]
    /// ['open', 'text']
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        chunk: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.check("feed")?;
        let chunk = input::chunk_arg(py, "chunk", chunk)?;
        let result = batch::scan(
            py,
            &mut self.scanner,
            &mut self.sink,
            Some(chunk.as_bytes()?),
        );
        self.answer(py, result)
    }

    /// Ends the input: answers the last events, or raises `UnclosedStartMarker` (with them
    /// on ``.events``) for a start marker with no end after it.
    ///
    /// >>> from extract_between import EventScanner
    /// >>> s = EventScanner("[", "]")
    /// >>> [e.kind for e in s.feed("[a")]
    /// ['open', 'text']
    /// >>> s.finish()
    /// Traceback (most recent call last):
    ///     ...
    /// extract_between.UnclosedStartMarker: unclosed start marker at UTF-16 offset 0 (byte offset 0)
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.check("finish")?;
        let result = batch::scan(py, &mut self.scanner, &mut self.sink, None);
        if result.is_ok() {
            self.ended = Some("finish() ended its input");
        }
        self.answer(py, result)
    }

    /// Bytes fed so far, in UTF-8 bytes.
    #[getter]
    fn byte_position(&self) -> u64 {
        self.scanner.position().byte
    }
}

impl EventScanner {
    fn check(&self, method: &str) -> PyResult<()> {
        match self.ended {
            None => Ok(()),
            Some(why) => Err(errors::ended("EventScanner", "an", method, why)),
        }
    }

    fn answer<'py>(
        &mut self,
        py: Python<'py>,
        result: Result<(), Ended>,
    ) -> PyResult<Bound<'py, PyList>> {
        let events = PyList::empty(py);
        for step in self.sink.drain() {
            events.append(Event::from_step(py, step))?;
        }
        match result {
            Ok(()) => Ok(events),
            Err(ended) => {
                self.ended = Some("it raised an error");
                Err(match ended {
                    Ended::Scan(e) => errors::scan_error_with_events(py, &e, events),
                    Ended::TooLarge(_) => unreachable_too_large(),
                    Ended::Interrupted(e) => e,
                })
            }
        }
    }
}

/// The events form holds no match, so nothing grows too large.
fn unreachable_too_large() -> PyErr {
    PyValueError::new_err("EventScanner: a match too large (a bug: the events form holds none)")
}
