"""The polars namespace as a plugin: every row equal to `extract` / the column functions,
eager, lazy, on the streaming engine, in `group_by().agg` and `over`, on empty, null-typed
and sliced frames; the plan names the plugin and holds no Python UDF."""

from __future__ import annotations

import re
from typing import List, Optional

import pyarrow as pa
import pytest

import extract_between as eb

pl = pytest.importorskip("polars")
import extract_between.polars  # noqa: E402,F401


def every(text: Optional[str], cap: Optional[int] = None) -> Optional[List[str]]:
    if text is None:
        return None
    found = eb.findall(text, "<b>", "</b>")
    return found if cap is None else found[:cap]


def frame(rows: int = 5000) -> "pl.DataFrame":
    texts = [None if i % 11 == 0 else f"x<b>{i}</b>é<b>😀{i % 7}</b>" + "<b>z</b>" * (i % 3) for i in range(rows)]
    return pl.DataFrame({"g": [i % 4 for i in range(rows)], "t": texts})


def collect(lazy: "pl.LazyFrame", engine: str) -> "pl.DataFrame":
    """`lazy` on the in-memory or the streaming engine, as each polars version names it."""
    if engine == "in-memory":
        return lazy.collect()
    try:
        return lazy.collect(engine="streaming")
    except (TypeError, ValueError):  # polars before the engine argument took "streaming"
        return lazy.collect(streaming=True)


@pytest.mark.parametrize("engine", ["eager", "in-memory", "streaming"])
def test_every_row_equals_extract_on_every_engine(engine):
    df = frame()
    exprs = [
        pl.col("t").extract_between.all("<b>", "</b>").alias("all"),
        pl.col("t").extract_between.all("<b>", "</b>", max_matches=1).alias("capped"),
        pl.col("t").extract_between.first("<b>", "</b>").alias("first"),
    ]
    out = df.select(exprs) if engine == "eager" else collect(df.lazy().select(exprs), engine)
    texts = df["t"].to_list()
    assert out["all"].to_list() == [every(t) for t in texts]
    assert out["capped"].to_list() == [every(t, 1) for t in texts]
    assert out["first"].to_list() == [None if t is None else every(t)[0] for t in texts]
    assert out.schema == {"all": pl.List(pl.String), "capped": pl.List(pl.String), "first": pl.String}


def test_the_plan_names_the_plugin_and_holds_no_python_udf():
    plan = pl.LazyFrame({"t": ["<b>a</b>"]}).select(pl.col("t").extract_between.all("<b>", "</b>")).explain()
    assert "python_udf" not in plan and "map_batches" not in plan
    assert "extract_between_all()" in plan, plan


def test_group_by_agg_and_over():
    df = frame(200)
    texts, groups = df["t"].to_list(), df["g"].to_list()
    agg = df.group_by("g").agg(pl.col("t").extract_between.first("<b>", "</b>").alias("f")).sort("g")
    for g, firsts in zip(agg["g"].to_list(), agg["f"].to_list()):
        want = [None if t is None else every(t)[0] for t, k in zip(texts, groups) if k == g]
        assert firsts == want
    over = df.select(pl.col("t").extract_between.all("<b>", "</b>").over("g").alias("o"))
    assert over["o"].to_list() == [every(t) for t in texts]


def test_empty_null_typed_and_sliced_frames():
    empty = pl.DataFrame({"t": pl.Series([], dtype=pl.String)})
    assert empty.select(pl.col("t").extract_between.all("[", "]"))["t"].to_list() == []
    nulls = pl.DataFrame({"t": [None, None]})
    assert nulls.select(pl.col("t").extract_between.first("[", "]"))["t"].to_list() == [None, None]
    df = frame(100)
    sliced = df.slice(37, 20)
    out = sliced.select(pl.col("t").extract_between.all("<b>", "</b>"))["t"].to_list()
    assert out == [every(t) for t in df["t"].to_list()[37:57]]
    series = df["t"].slice(5, 10)
    assert series.extract_between.all("<b>", "</b>").to_list() == [every(t) for t in series.to_list()]


def test_on_unclosed_null_and_partial():
    df = pl.DataFrame({"t": ["[a] [b", "[c]"]})
    assert df.select(pl.col("t").extract_between.all("[", "]", on_unclosed="null"))["t"].to_list() == [None, ["c"]]
    assert df.select(pl.col("t").extract_between.all("[", "]", on_unclosed="partial"))["t"].to_list() == [["a"], ["c"]]
    assert df.select(pl.col("t").extract_between.first("[", "]", on_unclosed="null"))["t"].to_list() == [None, "c"]


def test_the_plugin_agrees_with_the_column_function():
    df = frame(3000)
    plugin = df.select(pl.col("t").extract_between.all("<b>", "</b>"))["t"].to_list()
    column = pa.array(eb.extract_all(df["t"], "<b>", "</b>")).to_pylist()
    assert plugin == column


def test_matches_of_every_length_from_rows_inline_and_not():
    # polars keeps a string of at most 12 bytes inside its view and a longer one in a shared
    # buffer; a match is answered as a view of its row, so both kinds of row and of match
    # are checked, over several chunks and a slice.
    texts = [f"{'ab' * (i % 5)}<{'é' * (n // 2)}{'x' * (n % 2)}>{'😀' * (i % 3)}" for i in range(60) for n in range(0, 31)]
    texts += ["<>", "<a>", "<abcdefghij>", "x<abcdefghijk>", None, ""]
    chunks = [pl.Series("t", texts[:500]), pl.Series("t", texts[500:]), pl.Series("t", texts[:40])]
    column = pl.concat(chunks, rechunk=False)
    assert column.n_chunks() == 3
    want = texts + texts[:40]
    out = pl.DataFrame({"t": column}).select(
        pl.col("t").extract_between.all("<", ">").alias("all"),
        pl.col("t").extract_between.first("<", ">").alias("first"),
    )
    assert out["all"].to_list() == [None if t is None else eb.findall(t, "<", ">") for t in want]
    assert out["first"].to_list() == [None if not t else eb.findall(t, "<", ">")[0] for t in want]
    sliced = column.slice(480, 60)
    assert sliced.extract_between.all("<", ">").to_list() == [None if t is None else eb.findall(t, "<", ">") for t in want[480:540]]


def test_the_answer_outlives_the_frame_it_came_from():
    import gc

    df = pl.DataFrame({"t": [f"pre <b>{'long title ' * (i % 4 + 1)}{i}</b> post" for i in range(1000)]})
    want = [[f"{'long title ' * (i % 4 + 1)}{i}"] for i in range(1000)]
    out = df.select(pl.col("t").extract_between.all("<b>", "</b>"))
    del df
    gc.collect()
    assert out["t"].to_list() == want


NOT_STRINGS = [
    ("cat", lambda: pl.Series("c", ["[a]", "[b]"], dtype=pl.Categorical)),
    ("enum", lambda: pl.Series("c", ["[a]"], dtype=pl.Enum(["[a]"]))),
    ("struct", lambda: pl.Series("c", [{"x": "[a]"}])),
    ("i8", lambda: pl.Series("c", [1], dtype=pl.Int8)),
    ("i64", lambda: pl.Series("c", [1], dtype=pl.Int64)),
    ("i128", lambda: pl.Series("c", [1], dtype=pl.Int128)),
    ("decimal", lambda: pl.Series("c", ["1.5"]).cast(pl.Decimal(10, 2))),
    ("array", lambda: pl.Series("c", [["[a]"]], dtype=pl.Array(pl.String, 1))),
    ("list", lambda: pl.Series("c", [["[a]"]])),
    ("binary", lambda: pl.Series("c", [b"[a]"])),
]


@pytest.mark.parametrize("kind,make", NOT_STRINGS, ids=[k for k, _ in NOT_STRINGS])
def test_a_column_of_another_type_is_refused_as_polars_refuses_it(kind, make):
    try:
        series = make()
    except Exception as e:  # noqa: BLE001 - a dtype this polars lacks is no case
        pytest.skip(f"this polars has no {kind} series: {e}")
    want = f"expected String type, got: {series.dtype}"
    with pytest.raises(pl.exceptions.PolarsError, match=re.escape(want)) as eager:
        series.extract_between.all("[", "]")
    assert "panicked" not in str(eager.value)
    with pytest.raises(pl.exceptions.PolarsError, match=re.escape("expected String type")) as lazy:
        series.to_frame().lazy().select(pl.col("c").extract_between.first("[", "]")).collect()
    assert "panicked" not in str(lazy.value)


def test_a_series_named_like_a_pattern_is_addressed_by_position():
    for name in ("^h$", "^.*$", "*", ""):
        series = pl.Series(name, ["[x]", "[y][z]"])
        assert series.extract_between.all("[", "]").to_list() == [["x"], ["y", "z"]]
        assert series.extract_between.first("[", "]").name == name


def test_max_matches_past_bigint_is_refused_when_the_expression_is_built():
    for cap in (2**63, 2**64 - 1, 2**70):
        with pytest.raises(eb.InvalidInput, match="max_matches must be an integer from 1 to 9223372036854775807"):
            pl.col("c").extract_between.all("[", "]", max_matches=cap)
    big = pl.DataFrame({"c": ["[a][b]"]}).select(pl.col("c").extract_between.all("[", "]", max_matches=2**63 - 1))
    assert big["c"].to_list() == [["a", "b"]]
