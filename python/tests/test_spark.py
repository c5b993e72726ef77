"""The Spark column functions on a real local Spark (pyspark, Java, local[2]) over a parquet
dataset of 200,000 generated documents in several files: every row equals `extract` on it,
and an unclosed row is handled per `on_unclosed`. Without Java or pyspark the test is skipped
with the reason, unless EXTRACT_BETWEEN_REQUIRE_SPARK is set (`.ci/run` sets it)."""

from __future__ import annotations

import os
import re
import shutil
import sys

import pytest

import extract_between as eb

REQUIRED = bool(os.environ.get("EXTRACT_BETWEEN_REQUIRE_SPARK"))


def missing() -> str | None:
    if shutil.which("java") is None:
        return "no java on PATH"
    try:
        import pyspark  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as e:
        return f"no {e.name}"
    return None


@pytest.fixture(scope="module")
def spark():
    reason = missing()
    if reason:
        if REQUIRED:
            pytest.fail(f"EXTRACT_BETWEEN_REQUIRE_SPARK is set but {reason}")
        pytest.skip(f"Spark test skipped: {reason}")
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("extract-between-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    yield session
    session.stop()


def document(i: int) -> str:
    spans = "".join(f"<b>{i}-{k}</b> filler text " for k in range(i % 7))
    if i % 50_000 == 49_999:
        return f"<title>t{i}</title> {spans} <b>unclosed"
    return f"<html><title>t{i}</title><body>{spans}</body></html>"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path_factory.mktemp("docs")
    for part in range(4):
        ids = list(range(part * 50_000, (part + 1) * 50_000))
        pq.write_table(pa.table({"id": ids, "html": [document(i) for i in ids]}), path / f"part-{part}.parquet")
    return str(path)


def expected(html: str, on_unclosed: str):
    try:
        return eb.extract(html, "<b>", "</b>", 1000).matches
    except eb.UnclosedStartMarker as e:
        return None if on_unclosed == "null" else e.matches


@pytest.mark.parametrize("on_unclosed", ["null", "partial"])
def test_spark_columns_equal_extract_row_by_row(spark, dataset, on_unclosed):
    from extract_between.spark import extract_all, extract_first

    df = spark.read.parquet(dataset)
    assert df.rdd.getNumPartitions() >= 2
    out = df.select(
        "id",
        "html",
        extract_all("html", "<b>", "</b>", on_unclosed=on_unclosed).alias("all"),
        extract_first(df.html, "<title>", "</title>").alias("title"),
    ).toArrow()
    assert out.num_rows == 200_000
    unclosed = 0
    for row in out.to_pylist():
        want = expected(row["html"], on_unclosed)
        assert row["all"] == want, row["id"]
        assert row["title"] == f"t{row['id']}"
        unclosed += row["id"] % 50_000 == 49_999
    assert unclosed == 4


def test_spark_on_unclosed_raise_fails_the_job_naming_the_error(spark, dataset):
    from extract_between.spark import extract_all

    df = spark.read.parquet(dataset)
    with pytest.raises(Exception, match="UnclosedStartMarker") as e:
        df.select(extract_all("html", "<b>", "</b>")).collect()
    # The row counts within an Arrow batch, and says so; the row's text shows.
    message = str(e.value)
    assert "unclosed start marker in row" in message
    assert "counts from the start of a batch of" in message and "Spark handed" in message
    assert re.search(r"the row begins '<title>t\d*9999</title>", message)


def test_spark_options_are_checked_on_the_driver(spark):
    from extract_between.spark import extract_all, extract_first

    with pytest.raises(ValueError, match="on_unclosed"):
        extract_all("html", "[", "]", on_unclosed="skip")
    with pytest.raises(eb.InvalidInput, match="max_matches"):
        extract_all("html", "[", "]", max_matches=0)
    with pytest.raises(eb.InvalidInput, match="start"):
        extract_first("html", "", "]")


def test_spark_with_column_and_max_matches(spark):
    from extract_between.spark import extract_all

    df = spark.createDataFrame([("[a][b][c]",), (None,)], "html string")
    rows = df.withColumn("m", extract_all("html", "[", "]", max_matches=2)).collect()
    assert [r["m"] for r in rows] == [["a", "b"], None]
