"""The column functions as the package exports them: the native ones, after a column's
producer-specific preparation (a pandas Series without the PyCapsule interface, a polars
column of the ``Null`` type, pyarrow's own check of its buffers' sizes), and the note the
engine wrappers add to an error about what its row counts from."""

from __future__ import annotations

import functools
import importlib.util
from typing import TYPE_CHECKING, Any, Literal, Optional, Protocol, Tuple, Union

from . import _native
from ._errors import ExtractError

if TYPE_CHECKING:
    from arro3.core import Array

OnUnclosed = Literal["raise", "null", "partial"]
"""What a row with an unclosed start marker becomes."""


class ArrowArrayExportable(Protocol):
    """An object of the Arrow PyCapsule interface that exports one array (pyarrow's
    `Array`, arro3's, a polars `Series`)."""

    def __arrow_c_array__(self, requested_schema: Optional[object] = None) -> Tuple[object, object]: ...


class ArrowStreamExportable(Protocol):
    """An object of the Arrow PyCapsule interface that exports a stream of arrays (pyarrow's
    `ChunkedArray`, a DuckDB relation, a pandas 3 `Series`)."""

    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...


class ArrowBacked(Protocol):
    """A pandas `Series` of an Arrow dtype before pandas 3 (its `.array` exports Arrow)."""

    @property
    def array(self) -> Any: ...


Column = Union[ArrowArrayExportable, ArrowStreamExportable, ArrowBacked]
"""What the column functions take."""

# Engines whose exports are built from their own checked memory (pandas' from pyarrow's
# arrays, which are checked below before pandas exports them).
_ENGINES = frozenset(("polars", "duckdb"))


def _package(column: Any) -> str:
    """The top-level package of the column's type: ``polars`` for ``polars.series.series``,
    never a prefix match (a module named ``polars_anything`` is not polars)."""
    return type(column).__module__.partition(".")[0]


def _arrow(column: Any) -> Any:
    package = _package(column)
    if package == "polars" and str(getattr(column, "dtype", "")) == "Null":
        # polars exports an all-None column as Arrow's null type with a buffer the C
        # interface does not allow; as strings it is the same column.
        import polars as pl

        return column.cast(pl.String)
    if package in _ENGINES:
        return column
    if package == "pandas":
        # A pandas column of an Arrow dtype exports pyarrow's arrays as they are: check them
        # as pyarrow's own, whichever interface pandas would have exported them through.
        values = getattr(column, "array", None)
        if hasattr(values, "__arrow_array__"):
            return _checked_by_pyarrow(values.__arrow_array__())
        return column
    if package == "pyarrow" or hasattr(column, "__arrow_c_array__"):
        # The C interface does not carry the size of a string column's values buffer, which
        # the native import derives from the last offset: pyarrow's check compares the two
        # (and its import of another producer's array takes a negative one safely). Streams
        # of pyarrow (a ChunkedArray, a Table) are checked chunk by chunk the same way.
        return _checked_by_pyarrow(column)
    if hasattr(column, "__arrow_c_stream__"):
        # Another producer's stream: its buffers' sizes cross nowhere, so the native import's
        # own checks of offsets and views are all any consumer can make.
        return column
    values = getattr(column, "array", None)  # a pandas-like Series: its ExtensionArray
    if hasattr(values, "__arrow_array__"):
        return _checked_by_pyarrow(values.__arrow_array__())
    return column


def _checked_by_pyarrow(column: Any) -> Any:
    if not _pyarrow_available():
        return column
    import pyarrow as pa

    if isinstance(column, (pa.Array, pa.ChunkedArray, pa.RecordBatch, pa.Table)):
        array = column
    else:
        try:
            array = pa.array(column)
        except (TypeError, pa.ArrowNotImplementedError):
            return column  # not an array pyarrow imports: the native checks alone
        except pa.ArrowInvalid as e:
            raise ValueError(f"column is a malformed Arrow array: {e}") from None
    try:
        array.validate()
    except pa.ArrowInvalid as e:
        raise ValueError(f"column is a malformed Arrow array: {e}") from None
    return array


@functools.lru_cache(maxsize=None)
def _pyarrow_available() -> bool:
    return importlib.util.find_spec("pyarrow") is not None


def extract_all(
    column: Column,
    start: str,
    end: str,
    max_matches: Optional[int] = None,
    on_unclosed: OnUnclosed = "raise",
) -> Array:
    try:
        return _native.extract_all(_arrow(column), start, end, max_matches, on_unclosed)
    except TypeError as e:
        raise _explained(column, e) from None


def extract_first(column: Column, start: str, end: str, on_unclosed: OnUnclosed = "raise") -> Array:
    try:
        return _native.extract_first(_arrow(column), start, end, on_unclosed)
    except TypeError as e:
        raise _explained(column, e) from None


def _explained(column: Any, error: TypeError) -> TypeError:
    """A pandas object column's `TypeError` naming the first value that is no string, its
    type and its row; any other error as it is."""
    if _package(column) != "pandas" or str(getattr(column, "dtype", "")) != "object":
        return error
    for row, value in enumerate(column):
        if value is not None and not isinstance(value, str) and value == value:  # NaN != NaN
            return TypeError(
                f"column must hold strings: row {row} holds a value of type {type(value).__name__} ({value!r:.40})"
            )
    return error


def in_batch(error: ExtractError, rows: int, engine: str, function: str) -> ExtractError:
    """`error` with its row stated as a row of the batch of `rows` rows that `engine` handed
    to `function`, which is not the row's number in the whole frame (the library words it; a
    batch of one row, a constant argument say, has no row to count, and names none)."""
    if error.row is not None:
        error.placed = _native._place(error.message, error.row, rows, engine, function)
        if rows == 1:
            error.row = None
    return error


extract_all.__doc__ = _native.extract_all.__doc__
extract_first.__doc__ = _native.extract_first.__doc__
