"""`extract_all` / `extract_first` over Arrow columns from pyarrow, polars, pandas and DuckDB:
every row equals `extract` on it, nulls stay null, `on_unclosed` in its three modes, the
polars namespace lazy and eager and in `group_by().agg`."""

from __future__ import annotations

import random

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import extract_between as eb
import extract_between.polars  # noqa: F401

ALPHABET = ["a", "[", "]", "é", "😀", "「", "」", " "]


def expected_all(row, start, end, max_matches=1000, on_unclosed="raise"):
    if row is None:
        return None
    try:
        return eb.extract(row, start, end, max_matches).matches
    except eb.UnclosedStartMarker as e:
        return None if on_unclosed == "null" else e.matches


def expected_first(row, start, end, on_unclosed="raise"):
    if row is None:
        return None
    try:
        found = eb.extract(row, start, end, 1).matches
    except eb.UnclosedStartMarker as e:
        found = [] if on_unclosed == "null" else e.matches
    return found[0] if found else None


rows = st.lists(st.one_of(st.none(), st.lists(st.sampled_from(ALPHABET), max_size=30).map("".join)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(
    rows,
    st.sampled_from(["partial", "null"]),
    st.sampled_from(["string", "large_string", "string_view"]),
    st.sampled_from([None, 1, 2, 5]),
)
def test_every_row_equals_extract(values, on_unclosed, arrow_type, cap):
    column = pa.array(values, type=getattr(pa, arrow_type)())
    got = pa.array(eb.extract_all(column, "[", "]", max_matches=cap, on_unclosed=on_unclosed)).to_pylist()
    assert got == [expected_all(v, "[", "]", cap or 1000, on_unclosed) for v in values]
    got = pa.array(eb.extract_first(column, "[", "]", on_unclosed=on_unclosed)).to_pylist()
    assert got == [expected_first(v, "[", "]", on_unclosed) for v in values]


def test_max_matches_and_no_text_limit():
    big = "[x]" * 100_000  # 300000 bytes: past the card's text limit, which columns lift
    out = pa.array(eb.extract_all(pa.array([big, "[a][b][c]"]), "[", "]", max_matches=2)).to_pylist()
    assert out == [["x", "x"], ["a", "b"]]
    assert len(pa.array(eb.extract_all(pa.array([big]), "[", "]")).to_pylist()[0]) == 100_000
    with pytest.raises(eb.InvalidInput):
        eb.extract_all(pa.array(["x"]), "[", "]", max_matches=0)


def test_on_unclosed_raise_names_the_row():
    column = pa.chunked_array([["[a]", "[b]"], ["ok", "x [c"]])
    with pytest.raises(eb.UnclosedStartMarker) as e:
        eb.extract_all(column, "[", "]")
    assert (e.value.row, e.value.offset) == (3, 2)
    assert "row 3" in str(e.value)
    with pytest.raises(eb.UnclosedStartMarker) as e:
        eb.extract_first(pa.array(["[a] [b", "z"]), "[", "]")  # met looking for the extra match
    assert e.value.row == 0
    with pytest.raises(ValueError, match="on_unclosed"):
        eb.extract_all(column, "[", "]", on_unclosed="ignore")


def test_a_large_column_split_across_threads_keeps_row_order():
    rng = random.Random(3)
    values = [None if rng.random() < 0.05 else f"<t>{i}</t>" + "x" * rng.randint(0, 400) + f"<t>{-i}</t>" for i in range(50_000)]
    column = pa.chunked_array([values[:12_345], values[12_345:]])
    got = pa.array(eb.extract_all(column, "<t>", "</t>")).to_pylist()
    assert got == [None if v is None else [str(i), str(-i)] for i, v in enumerate(values)]


def test_non_string_columns_are_a_type_error():
    with pytest.raises(TypeError, match="strings"):
        eb.extract_all(pa.array([1, 2]), "[", "]")
    with pytest.raises(TypeError):
        eb.extract_all(["a python list"], "[", "]")


def test_polars_pandas_and_duckdb_columns():
    values = ["<b>x</b><b>y</b>", None, "none"]
    want = [["x", "y"], None, []]
    assert pa.array(eb.extract_all(pl.Series(values), "<b>", "</b>")).to_pylist() == want
    assert pa.array(eb.extract_all(pd.Series(values, dtype="string[pyarrow]"), "<b>", "</b>")).to_pylist() == want
    pages = pa.table({"html": values})  # noqa: F841 - read by DuckDB's replacement scan
    relation = duckdb.sql("select html from pages")
    assert pa.array(eb.extract_all(relation, "<b>", "</b>")).to_pylist() == want


def test_polars_namespace_lazy_eager_and_group_by():
    df = pl.DataFrame({"g": [1, 1, 2, 2], "html": ["<t>a</t>", "<t>b</t><t>c</t>", None, "<t>d</t>"]})
    eager = df.with_columns(pl.col("html").extract_between.all("<t>", "</t>").alias("all"))
    assert eager["all"].to_list() == [["a"], ["b", "c"], None, ["d"]]
    lazy = df.lazy().select(pl.col("html").extract_between.first("<t>", "</t>")).collect()
    assert lazy["html"].to_list() == ["a", "b", None, "d"]
    grouped = (
        df.group_by("g", maintain_order=True)
        .agg(pl.col("html").extract_between.first("<t>", "</t>").alias("first"))
        .sort("g")
    )
    assert grouped["first"].to_list() == [["a", "b"], [None, "d"]]
    # Without an alias the column keeps its name, in every context.
    kept = df.group_by("g", maintain_order=True).agg(pl.col("html").extract_between.first("<t>", "</t>"))
    assert kept.columns == ["g", "html"]
    assert df["html"].extract_between.all("<t>", "</t>", max_matches=1).to_list() == [["a"], ["b"], None, ["d"]]


def test_a_pandas_column_without_the_capsule_interface_goes_through_its_arrow_array():
    class OldSeries:  # what a pandas 2.2 Series offers: an ExtensionArray with __arrow_array__
        class array:
            @staticmethod
            def __arrow_array__(type=None):
                return pa.array(["<b>p</b>", None])

    assert pa.array(eb.extract_all(OldSeries(), "<b>", "</b>")).to_pylist() == [["p"], None]


def test_the_readme_ways_into_pyarrow_polars_and_pandas():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    answer = eb.extract_all(pa.array(["[a][b]", None]), "[", "]")
    assert pa.array(answer).to_pylist() == [["a", "b"], None]
    assert pl.Series(answer).to_list() == [["a", "b"], None]
    series = pa.array(answer).to_pandas(types_mapper=pd.ArrowDtype)
    assert isinstance(series, pd.Series) and len(series) == 2 and series[0] == ["a", "b"]
