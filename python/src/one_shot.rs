//! The card's one-shot call (`extract`, answering an `Extraction`) and its JSON contract
//! (`run_json`), with the card's limits and errors.

use crate::cached::{self, Last};
use crate::input::{self, Given, as_str, utf8_arg};
use crate::{detach, errors};
use extract_between::card::MAX_TEXT_BYTES;
use extract_between::{ExtractError, Extractor, Markers, request};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString, PyTuple};

/// What `extract` found: the matches in order and whether the cap cut them short.
///
/// >>> from extract_between import extract
/// >>> out = extract("pre[one]mid[two]post", "[", "]")
/// >>> out.matches, out.truncated
/// (['one', 'two'], False)
#[pyclass(frozen, module = "extract_between", skip_from_py_object)]
pub struct Extraction {
    /// The contents between the markers, in order.
    #[pyo3(get)]
    matches: Py<PyList>,
    /// Whether at least one further complete match exists after `max_matches`.
    #[pyo3(get)]
    truncated: bool,
}

#[pymethods]
impl Extraction {
    #[new]
    fn new(matches: Bound<'_, PyList>, truncated: bool) -> Extraction {
        Extraction {
            matches: matches.unbind(),
            truncated,
        }
    }

    /// Pickling and `copy`: the class and its constructor's arguments.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let this = slf.get();
        let args = (this.matches.clone_ref(slf.py()), this.truncated).into_pyobject(slf.py())?;
        Ok((slf.get_type().into_any(), args))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let matches = self.matches.bind(py).repr()?;
        let truncated = if self.truncated { "True" } else { "False" };
        Ok(format!(
            "Extraction(matches={matches}, truncated={truncated})"
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(other) = other.cast::<Extraction>() else {
            return Ok(false);
        };
        let other = other.get();
        Ok(self.truncated == other.truncated
            && PyAnyMethods::eq(self.matches.bind(py).as_any(), other.matches.bind(py))?)
    }

    /// `matches, truncated = extract(...)` unpacks.
    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let pair = (self.matches.clone_ref(py), self.truncated);
        Ok(pair.into_pyobject(py)?.try_iter()?.into_any().unbind())
    }
}

thread_local! {
    static LAST: std::cell::RefCell<Option<Box<Last>>> = const { std::cell::RefCell::new(None) };
}

/// Extracts every substring between `start` and `end` with the card's semantics and limits.
///
/// The text is at most 256000 UTF-8 bytes, each marker 1 to 4096 UTF-8 bytes, and
/// `max_matches` an integer from 1 to 1000 (leave it out for the card's default, 100; `None`
/// is refused, as the card refuses `null`); `truncated` is true when a further complete match
/// exists past the cap. The end marker is searched from just after the start marker, and a
/// start marker with no end after it raises `UnclosedStartMarker` (its `.offset` counts
/// UTF-16 code units, `.byte_offset` UTF-8 bytes; `.matches` holds what was found before it).
///
/// >>> from extract_between import extract
/// >>> extract("pre[one]mid[two]post", "[", "]")
/// Extraction(matches=['one', 'two'], truncated=False)
/// >>> extract("|a||b||c|", "|", "|", max_matches=2).truncated
/// True
/// >>> extract("a 😀[b", "[", "]")
/// Traceback (most recent call last):
///     ...
/// extract_between.UnclosedStartMarker: unclosed start marker at UTF-16 offset 4 (byte offset 6)
#[pyfunction]
#[pyo3(
    signature = (text, start, end, max_matches = Given::Absent),
    text_signature = "(text, start, end, max_matches=100)"
)]
pub fn extract(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    max_matches: Given<'_>,
) -> PyResult<Extraction> {
    // The JSON contract's order: the three strings, the cap, then the limits.
    let text_arg = input::text_arg(py, "text", text)?;
    // The same marker objects as the thread's last call: valid, and their finders built.
    let cached = match cached::take(&LAST, start, end) {
        Some(hit) => Ok(hit),
        None => Err((utf8_arg(py, "start", start)?, utf8_arg(py, "end", end)?)),
    };
    let cap = input::card_max_matches(py, max_matches)?;
    let text = text_arg.as_str(py, "text")?;
    if text.len() > MAX_TEXT_BYTES {
        let e = ExtractError::TextTooLong {
            len: text.len(),
            limit: MAX_TEXT_BYTES,
        };
        let error = errors::invalid_input(py, "text", &e.to_string());
        // The message stays the card's; the way out is a note (shown from Python 3.11).
        let value = error.value(py);
        if value.hasattr("add_note")? {
            value.call_method1(
                "add_note",
                ("findall and finditer take a text of any size, with no cap",),
            )?;
        }
        return Err(error);
    }
    let mut last = match cached {
        Ok(hit) => hit,
        Err((start_bytes, end_bytes)) => {
            let markers = Markers::new(
                as_str(py, "start", &start_bytes)?,
                as_str(py, "end", &end_bytes)?,
            )
            .map_err(|e| errors::marker(py, &e))?;
            let cap = extract_between::card::DEFAULT_MAX_MATCHES;
            Last::new(start, end, cap, Extractor::new(&markers))
        }
    };
    if last.cap != cap {
        last.extractor = last
            .extractor
            .clone()
            .max_matches(cap)
            .map_err(|e| errors::invalid_input(py, "max_matches", &e.to_string()))?;
        last.cap = cap;
    }
    let result = detach::if_long(py, text.len(), || last.extractor.extract(text));
    cached::put(&LAST, last);
    match result {
        Ok(out) => Ok(Extraction {
            matches: PyList::new(py, out.matches)?.unbind(),
            truncated: out.truncated,
        }),
        Err(ExtractError::Unclosed { marker, matches }) => {
            Err(errors::unclosed(py, marker, PyList::new(py, matches)?))
        }
        Err(e) => Err(errors::invalid_input(py, "text", &e.to_string())),
    }
}

/// Runs one request of the card's JSON contract and answers its JSON: the output object or
/// the error envelope, byte for byte what `extract-between tool` prints for the same body.
///
/// It never raises for bad input (malformed JSON, wrong fields, broken limits, lone
/// surrogates): that is an `invalid_input` envelope, as an agent framework handing over a
/// model's raw tool call needs. Only an argument that is neither `str` nor bytes-like is a
/// `TypeError`.
///
/// >>> from extract_between import run_json
/// >>> run_json('{"text":"pre[one]mid[two]post","start":"[","end":"]"}')
/// '{"matches":["one","two"],"truncated":false}'
/// >>> run_json(b'{"text":"a [b","start":"[","end":"]"}')
/// '{"error":{"code":"unclosed_start_marker","message":"unclosed start marker","offset":2,"byte_offset":2}}'
#[pyfunction]
pub fn run_json(py: Python<'_>, request: &Bound<'_, PyAny>) -> PyResult<String> {
    let body: Vec<u8> = if let Ok(s) = request.cast::<PyString>() {
        // A lone surrogate becomes bytes that are not UTF-8, which the contract reports as
        // such, as it would for the same bytes on stdin.
        s.call_method1("encode", ("utf-8", "surrogatepass"))?
            .cast_into::<PyBytes>()?
            .as_bytes()
            .to_vec()
    } else if let Ok(b) = request.cast::<PyBytes>() {
        return Ok(run_detached(py, b.as_bytes()));
    } else if let Ok(b) = request.cast::<PyByteArray>() {
        b.to_vec()
    } else if let Ok(view) = pyo3::types::PyMemoryView::from(request) {
        return Ok(run_detached(py, input::copy_bytes(py, &view)?.as_bytes()));
    } else {
        return Err(errors::wrong_type("request", "str or bytes", request));
    };
    Ok(run_detached(py, &body))
}

fn run_detached(py: Python<'_>, body: &[u8]) -> String {
    // The binary reads at most this much of a body and answers `payload_too_large` past it.
    if body.len() > request::MAX_REQUEST_BYTES {
        return request::payload_too_large_body();
    }
    detach::if_long(py, body.len(), || request::execute(body).body)
}
