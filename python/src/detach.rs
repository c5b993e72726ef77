//! Scans long enough to pay for releasing the GIL run without it; shorter ones keep it.

use pyo3::Python;

/// Scans of at least this many bytes run with the GIL released: below it, releasing and
/// taking it back costs more than another thread could gain.
pub(crate) const DETACH_BYTES: usize = 4096;

/// Runs `work`, a scan of `len` bytes: with the GIL released when `len` is at least
/// [`DETACH_BYTES`], so that other Python threads run meanwhile.
pub(crate) fn if_long<T: Send>(py: Python<'_>, len: usize, work: impl FnOnce() -> T + Send) -> T {
    if len >= DETACH_BYTES {
        py.detach(work)
    } else {
        work()
    }
}
