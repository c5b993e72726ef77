"""The native Spark SQL functions of the package's jar (`extract_between_all`,
`extract_between_first`) on a real local Spark: from SQL, the DataFrame API and the PySpark
wrappers; nulls, empty partitions, 10 MB rows, every `on_unclosed`, caps, Unicode and astral
text against the package's own column functions; bad arguments refused when the query is
analysed; and the Arrow UDFs taken where a session has no jar."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pyarrow as pa
import pytest

import extract_between as eb

TEXTS = [
    "pre[one]mid[two]post",
    None,
    "",
    "no markers",
    "[a][b][c][d]",
    "[open",
    "[x] then [open",
    "é[😀]ü[𝄞x]",
    "[]",
    "[[nested]]",
    "\u0000[\u0000]",
    "中文[一]中[二]",
]


def reference(texts, start, end, max_matches=None, on_unclosed="raise"):
    """The package's column function on the same rows: the engine the jar must agree with."""
    return pa.array(eb.extract_all(pa.array(texts, pa.string()), start, end, max_matches, on_unclosed)).to_pylist()


def reference_first(texts, start, end, on_unclosed="raise"):
    return pa.array(eb.extract_first(pa.array(texts, pa.string()), start, end, on_unclosed)).to_pylist()


def frame(spark, texts, partitions=1):
    rows = [(i, t) for i, t in enumerate(texts)]
    return spark.createDataFrame(rows, "i int, s string").repartition(partitions, "i").orderBy("i")


@pytest.mark.parametrize("cap", [None, 1, 2, 1000])
@pytest.mark.parametrize("on_unclosed", ["null", "partial"])
def test_sql_equals_the_column_functions_on_every_text_kind(native, cap, on_unclosed):
    native.createDataFrame([(i, t) for i, t in enumerate(TEXTS)], "i int, s string").createOrReplaceTempView("t")
    cap_sql = "NULL" if cap is None else str(cap)
    rows = native.sql(
        f"SELECT extract_between_all(s, '[', ']', {cap_sql}, '{on_unclosed}') AS a, "
        f"extract_between_first(s, '[', ']', '{on_unclosed}') AS f FROM t ORDER BY i"
    ).collect()
    assert [r.a for r in rows] == reference(TEXTS, "[", "]", cap, on_unclosed)
    assert [r.f for r in rows] == reference_first(TEXTS, "[", "]", on_unclosed)


def test_multi_byte_markers_and_astral_text(native):
    texts = ["«a»«😀»", "x«y", "🎉«🎉»🎉", None]
    df = frame(native, texts)
    rows = df.selectExpr("extract_between_all(s, '«', '»', NULL, 'partial') AS a").collect()
    assert [r.a for r in rows] == reference(texts, "«", "»", None, "partial")


def test_the_dataframe_api_and_the_wrappers_name_their_columns_as_spark_does(native):
    from pyspark.sql import functions as F

    from extract_between.spark import extract_all, extract_first

    df = native.createDataFrame([("<b>x</b><b>y</b>",)], "html string")
    out = df.select(
        F.expr("extract_between_all(html, '<b>', '</b>')"),
        F.call_function("extract_between_first", F.col("html"), F.lit("<b>"), F.lit("</b>")),
        extract_all("html", "<b>", "</b>").alias("all"),
        extract_first(df.html, "<b>", "</b>").alias("first"),
    )
    assert out.columns == [
        "extract_between_all(html, <b>, </b>)",
        "extract_between_first(html, <b>, </b>)",
        "all",
        "first",
    ]
    assert tuple(out.first()) == (["x", "y"], "x", ["x", "y"], "x")
    # The wrappers take the native functions in this session: no Python worker in the plan.
    plan = out._jdf.queryExecution().executedPlan().toString()
    assert "ArrowEvalPython" not in plan and "extract_between_all(html, <b>, </b>)" in plan, plan


def test_nested_uses_and_errors_name_the_function_as_written(native):
    df = native.createDataFrame([("[a]",)], "s string")
    out = df.selectExpr(
        "upper(extract_between_first(s, '[', ']'))",
        "size(extract_between_all(s, '[', ']', 5, 'null'))",
        "concat(extract_between_first(s, '[', ']', 'partial'), 'x')",
    )
    assert out.columns == [
        "upper(extract_between_first(s, [, ]))",
        "size(extract_between_all(s, [, ], 5, null))",
        "concat(extract_between_first(s, [, ], partial), x)",
    ]
    assert tuple(out.first()) == ("A", 1, "ax")
    with pytest.raises(Exception) as error:
        df.selectExpr("extract_between_first(array(s), '[', ']')")
    message = str(error.value).splitlines()[0]
    assert "extract_between_first(array(s), [, ])" in message and "static_invoke" not in message, message


def test_nulls_and_empty_partitions(native):
    df = native.createDataFrame([(None,), ("[a]",), (None,)], "s string").repartition(8)
    assert df.rdd.getNumPartitions() == 8
    rows = df.selectExpr("extract_between_all(s, '[', ']') AS a", "extract_between_first(s, '[', ']') AS f").collect()
    assert sorted(((r.a, r.f) for r in rows), key=str) == sorted([(None, None), (["a"], "a"), (None, None)], key=str)
    empty = native.range(0).selectExpr("extract_between_all(CAST(id AS STRING), '[', ']') AS a")
    assert empty.collect() == []


def test_ten_megabyte_rows(native):
    big = "".join(f"<b>{i}</b> filler {'é' * (i % 5)} " for i in range(400_000))
    assert len(big.encode()) > 10_000_000
    texts = [big, big[:-3] + " <b>open"]
    df = frame(native, texts)
    rows = df.selectExpr(
        "extract_between_all(s, '<b>', '</b>', NULL, 'partial') AS a", "extract_between_first(s, '<b>', '</b>') AS f"
    ).collect()
    want = reference(texts, "<b>", "</b>", None, "partial")
    assert [r.a for r in rows] == want
    assert len(rows[0].a) == 400_000 and rows[0].f == "0"


def test_a_non_utf8_row_fails_with_its_offset(native):
    df = native.createDataFrame([(bytearray(b"[a]\xff[b]"),)], "b binary")
    with pytest.raises(Exception, match="InvalidUtf8: invalid UTF-8 at byte offset 3"):
        df.selectExpr("extract_between_all(CAST(b AS STRING), '[', ']')").collect()


@pytest.mark.parametrize(
    "query, says",
    [
        ("extract_between_all(s, '', ']')", "start must be a non-empty string"),
        ("extract_between_all(s, '[', '')", "end must be a non-empty string"),
        (f"extract_between_all(s, '{'x' * 4100}', ']')", "start must be at most"),
        ("extract_between_all(s, s, ']')", "start must be a constant"),
        ("extract_between_all(s, NULL, ']')", "start must be a string"),
        ("extract_between_all(s, 1, ']')", "start must be a string"),
        ("extract_between_all(s, '[', ']', 0)", "max_matches must be an integer from 1 to 9223372036854775807"),
        ("extract_between_all(s, '[', ']', 'ten')", "max_matches must be an integer from 1 to 9223372036854775807"),
        ("extract_between_all(s, '[', ']', 2, 'skip')", "on_unclosed must be 'raise', .* not 'skip'"),
        ("extract_between_first(s, '[', ']', 'skip')", "on_unclosed must be 'raise', .* not 'skip'"),
        ("extract_between_all(s, '[', ']', NULL, 5)", "on_unclosed must be 'raise', .* \\(NULL: 'raise'\\), not INT"),
        ("extract_between_first(s, '[', ']', true)", "on_unclosed must be 'raise', .* \\(NULL: 'raise'\\), not BOOLEAN"),
        ("extract_between_first(s, '[', ']', n)", "on_unclosed must be 'raise', .* \\(NULL: 'raise'\\), not INT"),
        ("extract_between_first(s, '[', ']', s)", "on_unclosed must be a constant"),
        ("extract_between_all(s, '[')", "takes 3 to 5 arguments, not 2"),
        ("extract_between_first(s, '[', ']', 'null', 1)", "takes 3 to 4 arguments, not 5"),
    ],
)
def test_bad_arguments_fail_when_the_query_is_analysed(native, query, says):
    from pyspark.errors import AnalysisException

    df = native.createDataFrame([("[a]", 1)], "s string, n int")
    # selectExpr analyses the query: the error comes before any job runs.
    with pytest.raises(AnalysisException, match=says):
        df.selectExpr(query)


def test_without_the_jar_the_wrappers_take_the_arrow_udfs(tmp_path):
    """A fresh session without `configure`: the same call runs on the Arrow UDFs."""
    script = textwrap.dedent(
        """
        import os, sys
        os.environ["PYSPARK_PYTHON"] = sys.executable
        from pyspark.sql import SparkSession
        from extract_between.spark import extract_all
        spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
        spark.sparkContext.setLogLevel("FATAL")
        df = spark.createDataFrame([("[a][b]",)], "s string").select(extract_all("s", "[", "]").alias("m"))
        plan = df._jdf.queryExecution().executedPlan().toString()
        print("arrow" if "ArrowEvalPython" in plan else "other", df.first().m)
        spark.stop()
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=tmp_path, env=dict(os.environ)
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "arrow ['a', 'b']"


def test_rows_off_the_heap_are_copied_and_answer_the_same(native, dataset):
    """Parquet read into off-heap column vectors: a row's bytes have no Java array, and the
    JVM side copies them before the engine reads them."""
    from pyspark.sql import functions as F

    native.conf.set("spark.sql.columnVector.offheap.enabled", "true")
    try:
        rows = (
            native.read.parquet(dataset)
            .where(F.col("id") % 997 == 0)
            .selectExpr("id", "extract_between_all(html, '<b>', '</b>', NULL, 'partial') AS a")
            .collect()
        )
    finally:
        native.conf.unset("spark.sql.columnVector.offheap.enabled")
    from spark_support import spark_document

    assert len(rows) > 200
    for row in rows:
        html = spark_document(row.id)
        assert row.a == reference([html], "<b>", "</b>", None, "partial")[0], row.id


@pytest.mark.parametrize(
    "query",
    [
        "extract_between_all(s, '[', ']', NULL, NULL)",
        "extract_between_all(s, '[', ']', 5, CAST(NULL AS STRING))",
        "extract_between_first(s, '[', ']', NULL)",
    ],
)
def test_a_null_on_unclosed_is_the_default_raise_never_a_silent_null(native, query):
    df = native.createDataFrame([("[a][b",)], "s string")
    with pytest.raises(Exception, match="unclosed start marker"):
        df.selectExpr(query).collect()


def test_collated_text_is_taken_and_matched_byte_for_byte(native):
    df = native.createDataFrame([("x[A]y[b]",), (None,)], "s string")
    rows = df.selectExpr(
        "extract_between_all(s COLLATE UTF8_LCASE, '[', ']') AS a",
        "extract_between_first(s COLLATE UNICODE_CI, '[', ']') AS f",
        # The card's equality, not the collation's: 'a' does not match 'A'.
        "extract_between_first(s COLLATE UTF8_LCASE, 'x[', ']') AS x",
        "extract_between_first(s COLLATE UTF8_LCASE, 'X[', ']') AS upper_x",
    ).collect()
    assert [(r.a, r.f, r.x, r.upper_x) for r in rows] == [(["A", "b"], "A", "A", None), (None, None, None, None)]


def test_rows_far_larger_than_their_matches_fit_a_small_driver(native):
    # Four 200 MiB rows without a match: an answer sized for the most matches a row could
    # hold (two ints a marker pair's length) would take 800 MiB a thread of a 1 GiB driver.
    rows = native.sql(
        "SELECT size(extract_between_all(repeat('x', 209715200 + CAST(id * 0 AS INT)), '[', ']')) AS n,"
        " extract_between_first(repeat('y', 209715200 + CAST(id * 0 AS INT)), '<', '>') AS f FROM range(4)"
    ).collect()
    assert [(r.n, r.f) for r in rows] == [(0, None)] * 4


def test_the_row_error_is_the_librarys_words(native):
    df = native.createDataFrame([("[a]",), ("😀 [x",)], "s string").coalesce(1)
    with pytest.raises(Exception) as e:
        df.selectExpr("extract_between_all(s, '[', ']')").collect()
    want = 'UnclosedStartMarker: unclosed start marker at UTF-16 offset 3 (byte offset 5); the row begins "😀 [x"'
    assert want in str(e.value)


def test_the_shared_row_vectors(native):
    """testdata/rows.json (the row contract's vectors, which the library and every host run)
    through the jar's SQL functions: every answer in one query (a branch a case), each
    distinct stopping row's error (its class and words) in a query of its own, and every bad
    option's words in SQL's spelling when the query is analysed. Rows go in as bytes cast to
    strings, so that bytes that are not UTF-8 reach the functions too; one partition keeps the
    first stopping row the first scanned."""
    import json

    from pyspark.errors import AnalysisException

    with open(os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "rows.json"), encoding="utf-8") as f:
        cases = json.load(f)["cases"]

    def literal(value):
        if value is None:
            return "NULL"
        if isinstance(value, int):
            return str(value)
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"

    def call(case, function):
        if function == "first":
            given = [case["on_unclosed"]] if "on_unclosed" in case else []
        elif "on_unclosed" in case:
            given = [case.get("max_matches"), case["on_unclosed"]]
        else:
            given = [case["max_matches"]] if "max_matches" in case else []
        args = ["CAST(b AS STRING)", literal(case["start"]), literal(case["end"])]
        args += [literal(v) for v in given]
        return f"extract_between_{function}({', '.join(args)})"

    def raw(row):
        if row is None:
            return None
        return bytearray(bytes.fromhex(row["utf8_hex"]) if isinstance(row, dict) else row.encode())

    answers, stops, refused = [], {}, []
    for k, case in enumerate(cases):
        for function in ("all", "first"):
            want = case.get(function)
            if want is None:
                continue
            if "rows" in want:
                answers.append((k, function, want["rows"]))
            elif want["error"]["class"] == "InvalidInput":
                refused.append((case, function, want["error"]))
            else:
                # Calls that stop at the same row with the same words: one query says it.
                error = want["error"]
                stops.setdefault((case["name"], function, error["row"], error["message"]), (case, function, error))

    # Every answer: the rows of every case, each case's call in its own branch.
    rows = [(k, i, raw(r)) for k, case in enumerate(cases) for i, r in enumerate(case["rows"])]
    df = native.createDataFrame(rows, "k int, i int, b binary")
    branches = " ".join(f"WHEN {k} THEN {call(cases[k], f)}" for k, f, _ in answers if f == "all")
    firsts = " ".join(f"WHEN {k} THEN {call(cases[k], f)}" for k, f, _ in answers if f == "first")
    got = {
        (r.k, r.i): (r.a, r.f)
        for r in df.selectExpr("k", "i", f"CASE k {branches} END AS a", f"CASE k {firsts} END AS f").collect()
    }
    for k, function, want in answers:
        column = 0 if function == "all" else 1
        answered = [got[(k, i)][column] for i in range(len(cases[k]["rows"]))]
        expected = [None if r is None else r["matches"] for r in want] if function == "all" else want
        assert answered == expected, (cases[k]["name"], cases[k].get("max_matches"), cases[k].get("on_unclosed"), function)

    for case, function, error in stops.values():
        one = native.createDataFrame([(i, raw(r)) for i, r in enumerate(case["rows"])], "i int, b binary").coalesce(1)
        with pytest.raises(Exception) as raised:
            one.orderBy("i").selectExpr(call(case, function)).collect()
        assert f"{error['class']}: {error['message']}" in str(raised.value), (case["name"], function)

    for case, function, error in refused:
        with pytest.raises(AnalysisException) as raised:
            df.selectExpr(call(case, function))
        if not -(2**63) <= case.get("max_matches", 0) < 2**63:
            # Past BIGINT, Spark reads the literal as a DECIMAL: no integer type.
            assert "max_matches must be an integer from 1 to 9223372036854775807 or NULL, not DECIMAL" in str(raised.value)
        else:
            assert error["messages"]["sql"] in str(raised.value), (case["name"], function)
    assert len(answers) > 200 and len(stops) > 10 and len(refused) > 10
