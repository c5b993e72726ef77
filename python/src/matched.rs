//! `Match`, one match of a stream as `finditer` and `Scanner` report it: a plain value that
//! compares, hashes, copies and pickles (an error carrying matches crosses process pools).

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

/// One match of a stream: its content and where it lies in the whole source, in UTF-8 bytes
/// and in UTF-16 code units (the card's unit; what a JavaScript client slices with).
///
/// >>> from extract_between import finditer
/// >>> m = next(finditer("😀[é]", "[", "]"))
/// >>> m.text, (m.byte_start, m.byte_end), (m.utf16_start, m.utf16_end)
/// ('é', (5, 7), (3, 4))
/// >>> import pickle
/// >>> pickle.loads(pickle.dumps(m)) == m
/// True
#[pyclass(frozen, module = "extract_between", skip_from_py_object)]
pub struct Match {
    /// The content between the markers.
    #[pyo3(get)]
    pub text: Py<PyString>,
    /// Where the content begins, in UTF-8 bytes from the start of the source.
    #[pyo3(get)]
    pub byte_start: u64,
    /// Where the content ends (where the end marker begins), in UTF-8 bytes.
    #[pyo3(get)]
    pub byte_end: u64,
    /// Where the content begins, in UTF-16 code units.
    #[pyo3(get)]
    pub utf16_start: u64,
    /// Where the content ends, in UTF-16 code units.
    #[pyo3(get)]
    pub utf16_end: u64,
}

#[pymethods]
impl Match {
    #[new]
    fn new(
        text: Bound<'_, PyString>,
        byte_start: u64,
        byte_end: u64,
        utf16_start: u64,
        utf16_end: u64,
    ) -> Match {
        Match {
            text: text.unbind(),
            byte_start,
            byte_end,
            utf16_start,
            utf16_end,
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Match(text={}, byte_start={}, byte_end={}, utf16_start={}, utf16_end={})",
            self.text.bind(py).repr()?,
            self.byte_start,
            self.byte_end,
            self.utf16_start,
            self.utf16_end
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(other) = other.cast::<Match>() else {
            return Ok(false);
        };
        let o = other.get();
        Ok((
            self.byte_start,
            self.byte_end,
            self.utf16_start,
            self.utf16_end,
        ) == (o.byte_start, o.byte_end, o.utf16_start, o.utf16_end)
            && PyAnyMethods::eq(self.text.bind(py).as_any(), o.text.bind(py))?)
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

impl Match {
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        (
            self.text.clone_ref(py),
            self.byte_start,
            self.byte_end,
            self.utf16_start,
            self.utf16_end,
        )
            .into_pyobject(py)
    }
}
