"""The Spark column functions on a real local Spark (pyspark, Java, local[2]) over a parquet
dataset of 200,000 generated documents in several files, on both engines (the native SQL
functions of the package's jar, and the Arrow UDFs): every row equals `extract` on it, and an
unclosed row is handled per `on_unclosed`. The session and the dataset are conftest.py's."""

from __future__ import annotations

import re

import pytest

import extract_between as eb

ENGINES = ["native", "arrow"]


def functions(engine: str, spark):
    """`extract_all` and `extract_first` as `engine` runs them: the module's functions (which
    take the native ones when the session has them), or its Arrow UDFs."""
    from extract_between import spark as eb_spark

    if engine == "arrow":
        return eb_spark._arrow_extract_all, eb_spark._arrow_extract_first
    if eb_spark._native_session() is None:
        pytest.skip("the Spark jar is not in this build (bash spark/build.sh)")
    return eb_spark.extract_all, eb_spark.extract_first


def expected(html: str, on_unclosed: str):
    try:
        return eb.extract(html, "<b>", "</b>", 1000).matches
    except eb.UnclosedStartMarker as e:
        return None if on_unclosed == "null" else e.matches


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("on_unclosed", ["null", "partial"])
def test_spark_columns_equal_extract_row_by_row(spark, dataset, on_unclosed, engine):
    extract_all, extract_first = functions(engine, spark)
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


@pytest.mark.parametrize("engine", ENGINES)
def test_spark_on_unclosed_raise_fails_the_job_naming_the_error(spark, dataset, engine):
    extract_all, _ = functions(engine, spark)
    df = spark.read.parquet(dataset)
    with pytest.raises(Exception, match="UnclosedStartMarker") as e:
        df.select(extract_all("html", "<b>", "</b>")).collect()
    message = str(e.value)
    if engine == "arrow":
        # The row counts within an Arrow batch, and says so; the row's text shows.
        assert re.search(r"row \d+: unclosed start marker at UTF-16 offset", message)
        assert "counts from the start of the batch of" in message and "Spark handed to extract_between_all" in message
    # The library's words in both: the offset in UTF-16 code units and bytes, the row's text.
    assert re.search(r"unclosed start marker at UTF-16 offset \d+ \(byte offset \d+\)", message)
    assert re.search(r'the row begins "<title>t\d*9999</title>', message)


@pytest.mark.parametrize("engine", ENGINES)
def test_spark_options_are_checked_on_the_driver(spark, engine):
    extract_all, extract_first = functions(engine, spark)
    with pytest.raises(ValueError, match="on_unclosed"):
        extract_all("html", "[", "]", on_unclosed="skip")
    with pytest.raises(eb.InvalidInput, match="max_matches"):
        extract_all("html", "[", "]", max_matches=0)
    with pytest.raises(eb.InvalidInput, match="start"):
        extract_first("html", "", "]")


@pytest.mark.parametrize("engine", ENGINES)
def test_spark_with_column_and_max_matches(spark, engine):
    extract_all, _ = functions(engine, spark)
    df = spark.createDataFrame([("[a][b][c]",), (None,)], "html string")
    rows = df.withColumn("m", extract_all("html", "[", "]", max_matches=2)).collect()
    assert [r["m"] for r in rows] == [["a", "b"], None]
