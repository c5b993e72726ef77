"""A polars expression namespace: ``import extract_between.polars`` registers
``.extract_between`` on expressions and series, lazy and eager, in ``select``,
``with_columns``, ``group_by().agg`` and ``over``. The expressions are a polars plugin
(``polars.plugins``): polars calls the native functions on each batch itself, on its own
threads, with no GIL and no Python call, and a lazy query's plan shows them by name (the
streaming engine runs them like its own). Tested with polars 1.20 and 2.1.

An error is polars' ``ComputeError`` whose message carries the card's error: the row within
the batch polars handed over (the whole column when eager; a slice of it in the streaming
engine, whose row numbers restart at each batch), the offsets, and the start of that row's
text. Markers and options are checked when the expression is built.

>>> import polars as pl
>>> import extract_between.polars  # noqa: F401  (registers the namespace)
>>> df = pl.DataFrame({"html": ["<title>A</title>", "<title>B</title><title>C</title>", None]})
>>> df.select(pl.col("html").extract_between.all("<title>", "</title>"))["html"].to_list()
[['A'], ['B', 'C'], None]
>>> df.select(pl.col("html").extract_between.first("<title>", "</title>"))["html"].to_list()
['A', 'B', None]

The same as functions, which type-check under ``mypy --strict`` (polars' namespaces are
registered at run time, so a type checker cannot see ``.extract_between``): `extract_all`
and `extract_first` take a column name or an expression.

>>> from extract_between.polars import extract_all, extract_first
>>> df.select(extract_first("html", "<title>", "</title>"))["html"].to_list()
['A', 'B', None]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional, Union

import polars as pl
from polars.plugins import register_plugin_function

from . import _native
from ._columns import OnUnclosed

# The native module is the plugin library: polars finds it in the package's folder.
_LIBRARY = Path(__file__).parent


def _plugin(expr: pl.Expr, function: str, options: Dict[str, Any]) -> pl.Expr:
    return register_plugin_function(
        plugin_path=_LIBRARY,
        function_name=function,
        args=expr,
        kwargs=options,
        is_elementwise=True,
    )


def _expr(column: Union[str, pl.Expr]) -> pl.Expr:
    return pl.col(column) if isinstance(column, str) else column


def extract_all(
    column: Union[str, pl.Expr],
    start: str,
    end: str,
    *,
    max_matches: Optional[int] = None,
    on_unclosed: OnUnclosed = "raise",
) -> pl.Expr:
    """Every match of each row of `column` (a name or an expression), a ``list[str]``
    expression: ``pl.col(column).extract_between.all(...)`` as a typed function. The markers
    and options are checked here, when the expression is built.

    >>> import polars as pl
    >>> pl.DataFrame({"t": ["[a][b]"]}).select(extract_all("t", "[", "]", max_matches=1))["t"].to_list()
    [['a']]
    """
    _native._check_column_options(start, end, max_matches, on_unclosed)
    options = {"start": start, "end": end, "max_matches": max_matches, "on_unclosed": on_unclosed}
    return _plugin(_expr(column), "extract_between_all", options)


def extract_first(
    column: Union[str, pl.Expr], start: str, end: str, *, on_unclosed: OnUnclosed = "raise"
) -> pl.Expr:
    """Each row's first match of `column` (a name or an expression), a ``str`` expression:
    ``pl.col(column).extract_between.first(...)`` as a typed function.

    >>> import polars as pl
    >>> pl.DataFrame({"t": ["x<b>1</b>", None]}).select(extract_first(pl.col("t"), "<b>", "</b>"))["t"].to_list()
    ['1', None]
    """
    _native._check_column_options(start, end, None, on_unclosed)
    return _plugin(_expr(column), "extract_between_first", {"start": start, "end": end, "on_unclosed": on_unclosed})


@pl.api.register_expr_namespace("extract_between")
class ExtractBetweenExpr:
    """``pl.col(...).extract_between``: `all` and `first`."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def all(self, start: str, end: str, *, max_matches: Optional[int] = None, on_unclosed: OnUnclosed = "raise") -> pl.Expr:
        """Every match of each row, a ``list[str]`` column (see `extract_all`). The markers
        and options are checked here, when the expression is built."""
        return extract_all(self._expr, start, end, max_matches=max_matches, on_unclosed=on_unclosed)

    def first(self, start: str, end: str, *, on_unclosed: OnUnclosed = "raise") -> pl.Expr:
        """Each row's first match, a ``str`` column (see `extract_first`). The markers and
        options are checked here, when the expression is built."""
        return extract_first(self._expr, start, end, on_unclosed=on_unclosed)


# The name a series is given while its expression runs.
_PLAIN = "text"


def _strings(series: pl.Series) -> None:
    """Refuses a series that holds no strings as polars' own string functions do, before
    the plugin imports it (a type its build of polars lacks could not cross)."""
    if series.dtype not in (pl.String, pl.Null):
        raise pl.exceptions.SchemaError(f"expected String type, got: {series.dtype}")


@pl.api.register_series_namespace("extract_between")
class ExtractBetweenSeries:
    """``series.extract_between``: `all` and `first`, eagerly.

    >>> import polars as pl
    >>> import extract_between.polars  # noqa: F401
    >>> pl.Series(["[a][b]"]).extract_between.all("[", "]").to_list()
    [['a', 'b']]
    """

    def __init__(self, series: pl.Series) -> None:
        self._series = series

    def all(self, start: str, end: str, *, max_matches: Optional[int] = None, on_unclosed: OnUnclosed = "raise") -> pl.Series:
        """Every match of each row, a ``list[str]`` series."""
        _strings(self._series)
        return self._run(extract_all(_PLAIN, start, end, max_matches=max_matches, on_unclosed=on_unclosed))

    def first(self, start: str, end: str, *, on_unclosed: OnUnclosed = "raise") -> pl.Series:
        """Each row's first match, a ``str`` series."""
        _strings(self._series)
        return self._run(extract_first(_PLAIN, start, end, on_unclosed=on_unclosed))

    def _run(self, expr: pl.Expr) -> pl.Series:
        # Under a plain name, then its own again: ``pl.col`` reads a name such as ``^h$`` as a
        # pattern.
        frame = self._series.alias(_PLAIN).to_frame()
        return frame.select(expr).to_series().alias(self._series.name)
