"""The Spark session the tests share (one JVM for all: a JVM's class path is fixed when it
starts), with the package's jar when the build has it, and the generated dataset."""

import os
import sys

import pytest

# spark_support beside the tests, importable under --import-mode=importlib.
sys.path.insert(0, os.path.dirname(__file__))

from spark_support import REQUIRE_SPARK, spark_document, spark_missing  # noqa: E402


@pytest.fixture(scope="session")
def spark():
    reason = spark_missing()
    if reason:
        if REQUIRE_SPARK:
            pytest.fail(f"EXTRACT_BETWEEN_REQUIRE_SPARK is set but {reason}")
        pytest.skip(f"Spark test skipped: {reason}")
    from pyspark.sql import SparkSession

    from extract_between import spark as eb_spark

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("extract-between-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
    )
    try:
        builder = eb_spark.configure(builder)
    except FileNotFoundError:
        if REQUIRE_SPARK:
            raise
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("FATAL")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def native(spark):
    """The session, when it has the native functions (else the test is skipped)."""
    from extract_between import spark as eb_spark

    if eb_spark._native_session() is None:
        pytest.skip("the Spark jar is not in this build (bash spark/build.sh)")
    return spark


@pytest.fixture(scope="session")
def dataset(tmp_path_factory):
    """200,000 documents in four parquet files; rows 49,999 + k·50,000 hold an unclosed
    start."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path_factory.mktemp("docs")
    for part in range(4):
        ids = list(range(part * 50_000, (part + 1) * 50_000))
        table = pa.table({"id": ids, "html": [spark_document(i) for i in ids]})
        pq.write_table(table, path / f"part-{part}.parquet")
    return str(path)
