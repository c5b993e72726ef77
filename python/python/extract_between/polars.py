"""A polars expression namespace: ``import extract_between.polars`` registers
``.extract_between`` on expressions and series, lazy and eager, in ``select``,
``with_columns`` and ``group_by().agg``. It runs `extract_all` / `extract_first` over each
batch through ``map_batches`` (elementwise, so polars may split and stream it). Tested with
polars 1.20 and 2.1.

An error names the row within the batch polars handed over (the whole column when eager; a
slice of it in the streaming engine, whose row numbers restart at each batch) and shows the
start of that row's text; markers and options are checked when the expression is built.

>>> import polars as pl
>>> import extract_between.polars  # noqa: F401  (registers the namespace)
>>> df = pl.DataFrame({"html": ["<title>A</title>", "<title>B</title><title>C</title>", None]})
>>> df.select(pl.col("html").extract_between.all("<title>", "</title>"))["html"].to_list()
[['A'], ['B', 'C'], None]
>>> df.select(pl.col("html").extract_between.first("<title>", "</title>"))["html"].to_list()
['A', 'B', None]
"""

from __future__ import annotations

from typing import Optional

import polars as pl

from . import _native
from ._columns import OnUnclosed, extract_all, extract_first, in_batch
from ._errors import ExtractError



def _all(series: pl.Series, start: str, end: str, max_matches: Optional[int], on_unclosed: OnUnclosed) -> pl.Series:
    try:
        out = extract_all(series, start, end, max_matches, on_unclosed)
    except ExtractError as e:
        raise in_batch(e, len(series), "polars") from None
    # Renamed after the fact: some polars versions keep the Arrow field's name over the
    # name given with the values.
    return pl.Series(out).alias(series.name)


def _first(series: pl.Series, start: str, end: str, on_unclosed: OnUnclosed) -> pl.Series:
    try:
        out = extract_first(series, start, end, on_unclosed)
    except ExtractError as e:
        raise in_batch(e, len(series), "polars") from None
    return pl.Series(out).alias(series.name)


@pl.api.register_expr_namespace("extract_between")
class ExtractBetweenExpr:
    """``pl.col(...).extract_between``: `all` and `first`."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def all(self, start: str, end: str, *, max_matches: Optional[int] = None, on_unclosed: OnUnclosed = "raise") -> pl.Expr:
        """Every match of each row, a ``list[str]`` column (see `extract_all`). The markers
        and options are checked here, when the expression is built."""
        _native._check_column_options(start, end, max_matches, on_unclosed)
        return self._expr.map_batches(
            lambda s: _all(s, start, end, max_matches, on_unclosed),
            return_dtype=pl.List(pl.String),
            is_elementwise=True,
        )

    def first(self, start: str, end: str, *, on_unclosed: OnUnclosed = "raise") -> pl.Expr:
        """Each row's first match, a ``str`` column (see `extract_first`). The markers and
        options are checked here, when the expression is built."""
        _native._check_column_options(start, end, None, on_unclosed)
        return self._expr.map_batches(
            lambda s: _first(s, start, end, on_unclosed),
            return_dtype=pl.String,
            is_elementwise=True,
        )


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
        return _all(self._series, start, end, max_matches, on_unclosed)

    def first(self, start: str, end: str, *, on_unclosed: OnUnclosed = "raise") -> pl.Series:
        """Each row's first match, a ``str`` series."""
        return _first(self._series, start, end, on_unclosed)
