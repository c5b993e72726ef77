"""The column functions as the package exports them: the native ones, after turning a pandas
Arrow-backed column of a pandas without the PyCapsule interface on `Series` (before 3.0) into
its Arrow array."""

from __future__ import annotations

from typing import Any, Optional

from . import _native


def _arrow(column: Any) -> Any:
    if hasattr(column, "__arrow_c_array__") or hasattr(column, "__arrow_c_stream__"):
        return column
    values = getattr(column, "array", None)  # a pandas Series: its ExtensionArray
    if hasattr(values, "__arrow_array__"):
        return values.__arrow_array__()
    return column


def extract_all(
    column: Any,
    start: str,
    end: str,
    max_matches: Optional[int] = None,
    on_unclosed: str = "raise",
) -> Any:
    return _native.extract_all(_arrow(column), start, end, max_matches, on_unclosed)


def extract_first(column: Any, start: str, end: str, on_unclosed: str = "raise") -> Any:
    return _native.extract_first(_arrow(column), start, end, on_unclosed)


extract_all.__doc__ = _native.extract_all.__doc__
extract_first.__doc__ = _native.extract_first.__doc__
