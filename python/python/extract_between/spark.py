"""Spark column functions. Where the session has the package's jar (see `configure`), they are
the native SQL functions ``extract_between_all`` and ``extract_between_first``: Catalyst
expressions that run the engine inside the JVM on Spark's own UTF-8 bytes, also callable from
SQL, Scala and Java. Elsewhere they are Arrow UDFs (Spark ≥ 4.1): batches cross to Python
workers as Arrow arrays, each one call of `extract_all` / `extract_first`, and the workers
must import this package (locally, set ``PYSPARK_PYTHON`` to the venv's interpreter; on a
cluster see docs/SCALING.md). Both give the same results for the same arguments.

>>> from extract_between.spark import configure, extract_all, extract_first   # doctest: +SKIP
>>> spark = configure(SparkSession.builder).getOrCreate()                    # doctest: +SKIP
>>> df.select(extract_first("html", "<title>", "</title>").alias("title"))  # doctest: +SKIP
"""

from __future__ import annotations

import os
from typing import Optional, Union

import pyarrow as pa
from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.functions import arrow_udf

from . import _native
from ._columns import OnUnclosed, in_batch
from ._columns import extract_all as _extract_all, extract_first as _extract_first
from ._errors import ExtractError

ColumnOrName = Union[Column, str]

EXTENSIONS = "io.github.extractbetween.spark.ExtractBetweenExtensions"
"""The class ``spark.sql.extensions`` names to register the native functions."""

_JAR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars", "extract-between-spark.jar")


def jar_path() -> str:
    """The jar of the native Spark functions that ships in this package: the JVM classes and
    the engine's library for linux-x86_64. Give it to ``--jars`` (or ``spark.jars``) with
    ``--conf spark.sql.extensions=io.github.extractbetween.spark.ExtractBetweenExtensions``,
    or let `configure` do both. A build of the package without it (from the sdist, or a
    development install) raises ``FileNotFoundError`` saying how to build it.

    >>> jar_path().endswith("extract-between-spark.jar")   # doctest: +SKIP
    True
    """
    if not os.path.isfile(_JAR):
        raise FileNotFoundError(
            f"this build of extract_between has no Spark jar at {_JAR}: the Linux x86-64 wheel "
            "carries it (on other platforms the functions here run as Arrow UDFs); in a "
            "checkout, `bash spark/build.sh` builds it into target/spark/, to copy to "
            "python/python/extract_between/jars/"
        )
    return _JAR


def configure(builder: "SparkSession.Builder") -> "SparkSession.Builder":
    """``builder`` with the package's jar added to ``spark.jars`` and its extension to
    ``spark.sql.extensions`` (after whatever either already holds): sessions it builds have
    ``extract_between_all`` and ``extract_between_first`` in SQL, and the functions of this
    module use them. Set it before the session's JVM starts (the first ``getOrCreate``).

    >>> spark = configure(SparkSession.builder.master("local[2]")).getOrCreate()  # doctest: +SKIP
    >>> spark.sql("SELECT extract_between_all('a[1]b[2]', '[', ']') AS m").first().m  # doctest: +SKIP
    ['1', '2']
    """
    options = getattr(builder, "_options", {})

    def added(key: str, value: str) -> str:
        held = [v for v in str(options.get(key, "")).split(",") if v]
        return ",".join(held if value in held else [*held, value])

    jar = jar_path()
    return builder.config("spark.jars", added("spark.jars", jar)).config(
        "spark.sql.extensions", added("spark.sql.extensions", EXTENSIONS)
    )


def _native_session() -> Optional[SparkSession]:
    """The active session when it has the native functions, else ``None``."""
    session = SparkSession.getActiveSession()
    if session is None:
        return None
    try:
        return session if session.catalog.functionExists("extract_between_all") else None
    except Exception:  # pragma: no cover - a session that cannot say: take the UDFs
        return None


def _column(col: ColumnOrName) -> Column:
    return F.col(col) if isinstance(col, str) else col


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
    With the native functions in the session, an error names the offset and the start of the
    row's text; on the Arrow UDFs, its row counts from the start of the Arrow batch Spark
    handed over (``spark.sql.execution.arrow.maxRecordsPerBatch`` rows, 10,000 by default)."""
    if _native_session() is None:
        return _arrow_extract_all(col, start, end, max_matches=max_matches, on_unclosed=on_unclosed)
    _native._check_column_options(start, end, max_matches, on_unclosed)
    args = [_column(col), F.lit(start), F.lit(end)]
    if max_matches is not None or on_unclosed != "raise":
        args.append(F.lit(max_matches))
    if on_unclosed != "raise":
        args.append(F.lit(on_unclosed))
    return F.call_function("extract_between_all", *args)


def extract_first(
    col: ColumnOrName,
    start: str,
    end: str,
    *,
    on_unclosed: OnUnclosed = "raise",
) -> Column:
    """Each row's first match, a ``string`` column (see `extract_between.extract_first`;
    checks and errors as `extract_all`)."""
    if _native_session() is None:
        return _arrow_extract_first(col, start, end, on_unclosed=on_unclosed)
    _native._check_column_options(start, end, None, on_unclosed)
    args = [_column(col), F.lit(start), F.lit(end)]
    if on_unclosed != "raise":
        args.append(F.lit(on_unclosed))
    return F.call_function("extract_between_first", *args)


def _arrow_extract_all(
    col: ColumnOrName,
    start: str,
    end: str,
    *,
    max_matches: Optional[int] = None,
    on_unclosed: OnUnclosed = "raise",
) -> Column:
    """`extract_all` on an Arrow UDF, whatever the session has."""
    _native._check_column_options(start, end, max_matches, on_unclosed)

    @arrow_udf("array<string>")
    def extract_between_all(texts: pa.Array) -> pa.Array:
        try:
            return pa.array(_extract_all(texts, start, end, max_matches, on_unclosed))
        except ExtractError as e:
            raise in_batch(e, len(texts), "Spark", "extract_between_all") from None

    return extract_between_all(col)


def _arrow_extract_first(
    col: ColumnOrName,
    start: str,
    end: str,
    *,
    on_unclosed: OnUnclosed = "raise",
) -> Column:
    """`extract_first` on an Arrow UDF, whatever the session has."""
    _native._check_column_options(start, end, None, on_unclosed)

    @arrow_udf("string")
    def extract_between_first(texts: pa.Array) -> pa.Array:
        try:
            return pa.array(_extract_first(texts, start, end, on_unclosed))
        except ExtractError as e:
            raise in_batch(e, len(texts), "Spark", "extract_between_first") from None

    return extract_between_first(col)
