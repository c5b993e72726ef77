"""Spark column functions on Arrow UDFs (Spark ≥ 4.1): batches cross between the JVM and the
Python workers as Arrow arrays, and each is one call of `extract_all` / `extract_first`.
The workers must import this package: install it where they run (locally, set
``PYSPARK_PYTHON`` to the venv's interpreter; on a cluster see docs/SCALING.md).

>>> from extract_between.spark import extract_all, extract_first   # doctest: +SKIP
>>> df.select(extract_first("html", "<title>", "</title>").alias("title"))  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Optional, Union

import pyarrow as pa
from pyspark.sql import Column
from pyspark.sql.functions import arrow_udf

from . import _native
from ._columns import OnUnclosed, in_batch
from ._columns import extract_all as _extract_all, extract_first as _extract_first
from ._errors import ExtractError

ColumnOrName = Union[Column, str]


def extract_all(
    col: ColumnOrName,
    start: str,
    end: str,
    *,
    max_matches: Optional[int] = None,
    on_unclosed: OnUnclosed = "raise",
) -> Column:
    """Every match of each row of a string column, an ``array<string>`` column (see
    `extract_between.extract_all`; the markers and options are checked here, on the driver).
    An error's row counts from the start of the Arrow batch Spark handed over (batches hold
    ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows, 10,000 by default), and its
    message shows the start of the row's text."""
    _native._check_column_options(start, end, max_matches, on_unclosed)

    @arrow_udf("array<string>")
    def extract_between_all(texts: pa.Array) -> pa.Array:
        try:
            return pa.array(_extract_all(texts, start, end, max_matches, on_unclosed))
        except ExtractError as e:
            raise in_batch(e, len(texts), "Spark") from None

    return extract_between_all(col)


def extract_first(
    col: ColumnOrName,
    start: str,
    end: str,
    *,
    on_unclosed: OnUnclosed = "raise",
) -> Column:
    """Each row's first match, a ``string`` column (see `extract_between.extract_first`;
    checks and errors as `extract_all`)."""
    _native._check_column_options(start, end, None, on_unclosed)

    @arrow_udf("string")
    def extract_between_first(texts: pa.Array) -> pa.Array:
        try:
            return pa.array(_extract_first(texts, start, end, on_unclosed))
        except ExtractError as e:
            raise in_batch(e, len(texts), "Spark") from None

    return extract_between_first(col)
