"""Benchmark: the column functions against the column tools a data engineer would use
instead, on the same data in one run. Plain `time.perf_counter`, the median of ROUNDS rounds.

- 100,000 generated documents of ~2 KB as an Arrow column, dense (~25 `<title>` spans each)
  and sparse (one): `extract_all` against polars `str.extract_all`, DuckDB
  `regexp_extract_all(col, pat, 1)` and a `re.findall` list comprehension; `extract_first`
  against polars `str.extract(pat, 1)` and pyarrow `extract_regex`.
- Spark local[2] on a parquet dataset of the dense documents (4 files), end to end (read,
  extract, write parquet), the session built with the package's jar: the native
  `extract_between.spark.extract_all` and its Arrow UDF against Spark's built-in
  `regexp_extract_all(col, pat, 1)`, beside two floors: the same job copying the column, and
  with an Arrow UDF that returns its input (the JVM-Python round trip); then `extract_first`
  against `regexp_extract(col, pat, 1)`. Needs the jar in the package (the wheel's, or
  `bash spark/build.sh` copied in). Set SPARK=0 to skip.

Usage: python python/benches/columns.py   (ROUNDS=5 DOCS=100000 SPARK=1 to change)
"""

from __future__ import annotations

import os
import random
import re
import shutil
import sys
import tempfile

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

import extract_between as eb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import document, report  # noqa: E402

DOCS = int(os.environ.get("DOCS", "100000"))
SPARK = os.environ.get("SPARK", "1") == "1"
PATTERN = r"(?s)<title>(.*?)</title>"
def columns(name: str, docs: list[str]) -> None:
    column = pa.array(docs, type=pa.string())
    series = pl.Series("html", docs)
    con = duckdb.connect()
    con.register("pages", pa.table({"html": column}))
    compiled = re.compile(PATTERN)
    nbytes = column.nbytes

    want = [compiled.findall(d) for d in docs]
    assert pa.array(eb.extract_all(column, "<title>", "</title>")).to_pylist() == want
    assert pa.array(eb.extract_all(series, "<title>", "</title>")).to_pylist() == want
    duck = con.sql(f"select regexp_extract_all(html, '{PATTERN}', 1) from pages").fetchall()
    assert [r[0] for r in duck] == want
    report(
        f"extract_all, {len(docs):,} documents, {name}",
        nbytes,
        {
            "extract_between.extract_all (pyarrow string)": lambda: eb.extract_all(column, "<title>", "</title>"),
            "extract_between.extract_all (polars Series)": lambda: eb.extract_all(series, "<title>", "</title>"),
            "polars str.extract_all": lambda: series.str.extract_all(r"(?s)<title>.*?</title>"),
            "DuckDB regexp_extract_all": lambda: con.sql(f"select regexp_extract_all(html, '{PATTERN}', 1) from pages").to_arrow_table(),
            "re.findall, list comprehension": lambda: [compiled.findall(d) for d in docs],
        },
    )
    firsts = [w[0] if w else None for w in want]
    assert pa.array(eb.extract_first(column, "<title>", "</title>")).to_pylist() == firsts
    assert series.str.extract(PATTERN, 1).to_list() == firsts
    report(
        f"extract_first, {len(docs):,} documents, {name}",
        nbytes,
        {
            "extract_between.extract_first (pyarrow string)": lambda: eb.extract_first(column, "<title>", "</title>"),
            "extract_between.extract_first (polars Series)": lambda: eb.extract_first(series, "<title>", "</title>"),
            "polars str.extract": lambda: series.str.extract(PATTERN, 1),
            "pyarrow extract_regex": lambda: pc.extract_regex(column, r"(?s)<title>(?P<t>.*?)</title>"),
        },
    )


def spark(docs: list[str]) -> None:
    import pyarrow.parquet as pq
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    from extract_between import spark as eb_spark

    os.environ["PYSPARK_PYTHON"] = sys.executable
    builder = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").config("spark.driver.memory", "2g")
    session = eb_spark.configure(builder).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    work = tempfile.mkdtemp()
    try:
        src = os.path.join(work, "docs")
        os.makedirs(src)
        quarter = len(docs) // 4
        for part in range(4):
            rows = docs[part * quarter : (part + 1) * quarter]
            pq.write_table(pa.table({"html": rows}), os.path.join(src, f"part-{part}.parquet"))
        nbytes = sum(len(d.encode()) for d in docs[: 4 * quarter])

        def job(column):
            def run():
                out = os.path.join(work, "out")
                session.read.parquet(src).select(column.alias("titles")).write.mode("overwrite").parquet(out)

            return run

        def same(*columns):
            ordered = [
                [r.t for r in session.read.parquet(src).select(c.alias("t")).orderBy(F.monotonically_increasing_id()).collect()]
                for c in columns
            ]
            assert all(o == ordered[0] for o in ordered), "the functions disagree"

        from pyspark.sql.functions import arrow_udf

        @arrow_udf("string")
        def identity(texts: pa.Array) -> pa.Array:
            return texts

        assert eb_spark._native_session() is not None, "the session has no jar"
        native_all = eb_spark.extract_all("html", "<title>", "</title>")
        udf_all = eb_spark._arrow_extract_all("html", "<title>", "</title>")
        builtin_all = F.regexp_extract_all("html", F.lit(PATTERN), 1)
        same(native_all, udf_all, builtin_all)
        where = f"Spark local[2], {4 * quarter:,} dense documents in 4 parquet files, read + extract + write"
        report(
            f"{where}, every match",
            nbytes,
            {
                "extract_between.spark.extract_all (native)": job(native_all),
                "extract_between.spark.extract_all (Arrow UDF)": job(udf_all),
                "Spark regexp_extract_all": job(builtin_all),
                "floor: the column copied": job(F.col("html")),
                "floor: an Arrow UDF that returns its input": job(identity("html")),
            },
        )
        native_first = eb_spark.extract_first("html", "<title>", "</title>")
        builtin_first = F.regexp_extract("html", PATTERN, 1)
        same(native_first, builtin_first)
        report(
            f"{where}, the first match",
            nbytes,
            {
                "extract_between.spark.extract_first (native)": job(native_first),
                "Spark regexp_extract": job(builtin_first),
                "floor: the column copied": job(F.col("html")),
            },
        )
    finally:
        session.stop()
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    rng = random.Random(11)
    print(f"Python {sys.version.split()[0]}, polars {pl.__version__}, DuckDB {duckdb.__version__}, pyarrow {pa.__version__}")
    dense = [document(rng, 25, "<title>", "</title>", 30) for _ in range(DOCS)]
    columns("dense (~25 spans in 2 KB)", dense)
    columns("sparse (one span in 2 KB)", [document(rng, 1, "<title>", "</title>", 30) for _ in range(DOCS)])
    if SPARK:
        spark(dense)


if __name__ == "__main__":
    main()
