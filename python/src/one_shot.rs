//! The card's one-shot call (`extract`, answering an `Extraction`) and its JSON contract
//! (`run_json`), with the card's limits and errors.

use crate::convert::utf8_arg;
use crate::{DETACH_BYTES, errors};
use extract_between::card::{MAX_MATCHES, MAX_TEXT_BYTES};
use extract_between::{ExtractError, Extractor, Markers, request};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyInt, PyList, PyString};

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

/// The extractor of a thread's last call, keyed by the marker objects themselves: a loop
/// over documents passes the same two strings each time, and encoding and checking them and
/// building two finders again costs about as much as scanning a sparse document.
struct Last {
    start: Py<PyAny>,
    end: Py<PyAny>,
    cap: usize,
    extractor: Extractor,
}

thread_local! {
    static LAST: std::cell::RefCell<Option<Last>> = const { std::cell::RefCell::new(None) };
}

/// UTF-8 that Python produced from a `str`; the check is cheap and keeps the code free of
/// assumptions about what an encoder hands back.
fn as_str<'b>(py: Python<'_>, name: &str, bytes: &'b Bound<'_, PyBytes>) -> PyResult<&'b str> {
    std::str::from_utf8(bytes.as_bytes())
        .map_err(|e| errors::invalid_input(py, name, &format!("{name} is not valid UTF-8: {e}")))
}

/// `max_matches` as an `int` (not a `bool`) from 1 to `max`; `expected` names the Python
/// types for a `TypeError`, `range` the values for an `InvalidInput`.
pub fn max_matches_arg(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    max: usize,
    expected: &str,
    range: &str,
) -> PyResult<usize> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(errors::wrong_type("max_matches", expected, value));
    }
    match value.extract::<u64>() {
        Ok(n) if n >= 1 && usize::try_from(n).is_ok_and(|n| n <= max) => Ok(n as usize),
        _ => Err(errors::invalid_input(
            py,
            "max_matches",
            &format!("max_matches must be {range} (it is {value})"),
        )),
    }
}

/// Extracts every substring between `start` and `end` with the card's semantics and limits.
///
/// The text is at most 256000 UTF-8 bytes, each marker 1 to 4096 UTF-8 bytes, and
/// `max_matches` an integer from 1 to 1000; `truncated` is true when a further complete match
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
/// extract_between._errors.UnclosedStartMarker: unclosed start marker at UTF-16 offset 4 (byte offset 6)
#[pyfunction]
#[pyo3(
    signature = (text, start, end, max_matches = None),
    text_signature = "(text, start, end, max_matches=100)"
)]
pub fn extract(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    max_matches: Option<&Bound<'_, PyAny>>,
) -> PyResult<Extraction> {
    // The JSON contract's order: the three strings, the cap, then the limits.
    let text_bytes = utf8_arg(py, "text", text)?;
    // The same marker objects as the thread's last call: valid, and their finders built.
    let same = LAST.with_borrow(|last| {
        last.as_ref()
            .is_some_and(|hit| hit.start.is(start) && hit.end.is(end))
    });
    let markers = if same {
        None
    } else {
        Some((utf8_arg(py, "start", start)?, utf8_arg(py, "end", end)?))
    };
    let cap = match max_matches {
        Some(value) => max_matches_arg(
            py,
            value,
            MAX_MATCHES,
            "int",
            &format!("an integer from 1 to {MAX_MATCHES}"),
        )?,
        None => extract_between::card::DEFAULT_MAX_MATCHES,
    };
    let text = as_str(py, "text", &text_bytes)?;
    if text.len() > MAX_TEXT_BYTES {
        let e = ExtractError::TextTooLong {
            len: text.len(),
            limit: MAX_TEXT_BYTES,
        };
        return Err(errors::invalid_input(py, "text", &e.to_string()));
    }
    let result = LAST.with_borrow_mut(|last| -> PyResult<_> {
        let last = match (last.as_mut(), markers) {
            (Some(hit), None) if hit.cap == cap => hit,
            (Some(hit), None) => {
                hit.extractor = hit
                    .extractor
                    .clone()
                    .max_matches(cap)
                    .map_err(|e| errors::invalid_input(py, "max_matches", &e.to_string()))?;
                hit.cap = cap;
                hit
            }
            (_, markers) => {
                let (start_bytes, end_bytes) = match markers {
                    Some(pair) => pair,
                    None => (utf8_arg(py, "start", start)?, utf8_arg(py, "end", end)?),
                };
                let markers = Markers::new(
                    as_str(py, "start", &start_bytes)?,
                    as_str(py, "end", &end_bytes)?,
                )
                .map_err(|e| errors::marker(py, &e))?;
                let extractor = Extractor::new(&markers)
                    .max_matches(cap)
                    .map_err(|e| errors::invalid_input(py, "max_matches", &e.to_string()))?;
                last.insert(Last {
                    start: start.clone().unbind(),
                    end: end.clone().unbind(),
                    cap,
                    extractor,
                })
            }
        };
        let extractor = &last.extractor;
        Ok(if text.len() >= DETACH_BYTES {
            py.detach(|| extractor.extract(text))
        } else {
            extractor.extract(text)
        })
    })?;
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
        return Ok(run_detached(
            py,
            crate::convert::copy_bytes(py, &view)?.as_bytes(),
        ));
    } else {
        return Err(errors::wrong_type("request", "str or bytes", request));
    };
    Ok(run_detached(py, &body))
}

fn run_detached(py: Python<'_>, body: &[u8]) -> String {
    if body.len() >= DETACH_BYTES {
        py.detach(|| request::execute(body).body)
    } else {
        request::execute(body).body
    }
}
