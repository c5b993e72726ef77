"""The row contract's shared vectors (`testdata/rows.json`, written from the card's loop by
`testdata/rows.py`; the Rust library, Spark's suite and the JavaScript package run the same
file) through every Python door to the column functions: pyarrow, pandas, the polars plugin,
and DuckDB's native extension and its Python fallback. Each case's answers, or its error's
class, row, words and matches before it, and each bad option's words in the door's spelling."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any, Callable, Dict, List, Optional

import pyarrow as pa
import pytest

import extract_between as eb

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "..", "testdata", "rows.json")
with open(VECTORS, encoding="utf-8") as _f:
    CASES: List[Dict[str, Any]] = json.load(_f)["cases"]

FUNCTIONS = ["all", "first"]


def _id(case: Dict[str, Any]) -> str:
    options = [f"{k}={case[k]!r}" for k in ("max_matches", "on_unclosed") if k in case]
    return " ".join([case["name"], *options])


def column(rows: List[Any]) -> pa.Array:
    """The rows as an Arrow string column, bytes that are not UTF-8 included (a view of a
    binary column: Arrow's string type without its check)."""
    raw = [None if r is None else bytes.fromhex(r["utf8_hex"]) if isinstance(r, dict) else r.encode() for r in rows]
    return pa.array(raw, pa.binary()).view(pa.string())


def valid_utf8(case: Dict[str, Any]) -> bool:
    return not any(isinstance(r, dict) for r in case["rows"])


def options(case: Dict[str, Any], function: str) -> Dict[str, Any]:
    keys = ("max_matches", "on_unclosed") if function == "all" else ("on_unclosed",)
    return {k: case[k] for k in keys if k in case}


def expected(case: Dict[str, Any], function: str) -> Optional[Dict[str, Any]]:
    """The case's answer for `function` in the columns' form, or None where `function` has
    no such option (`first` takes no cap)."""
    answer = case.get(function)
    if answer is None:
        return None
    if "rows" in answer and function == "all":
        return {"rows": [None if r is None else r["matches"] for r in answer["rows"]]}
    return answer


def check_error(raised: BaseException, want: Dict[str, Any], spelling: str, placed: Callable[[str, int], str]) -> None:
    """`raised` is the vector's error: its class, words (with the door's place) and row."""
    text = str(raised)
    if want["class"] == "InvalidInput":
        assert want["messages"][spelling] in text, (text, want)
    else:
        assert placed(want["message"], want["row"]) in text, (text, want)
    assert want["class"] in (type(raised).__name__ + ": " + text), (text, want)


def python_door(make: Callable[[List[Any]], Any]):
    def run(case: Dict[str, Any], function: str) -> Any:
        fn = eb.extract_all if function == "all" else eb.extract_first
        return pa.array(fn(make(case["rows"]), case["start"], case["end"], **options(case, function))).to_pylist()

    return run


@pytest.mark.parametrize("function", FUNCTIONS)
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_pyarrow(case, function):
    want = expected(case, function)
    if want is None:
        pytest.skip("no such option")
    run = python_door(column)
    if "rows" in want:
        assert run(case, function) == want["rows"]
        return
    with pytest.raises(eb.ExtractError) as raised:
        run(case, function)
    error = raised.value
    assert type(error).__name__ == want["class"]
    if want["class"] == "InvalidInput":
        assert str(error) == want["messages"]["python"]
        assert error.field == want["option"]
        return
    assert (error.message, error.row) == (want["message"], want["row"])
    assert str(error) == f"row {want['row']}: {want['message']}"


@pytest.mark.parametrize("function", FUNCTIONS)
@pytest.mark.parametrize("case", [c for c in CASES if valid_utf8(c)], ids=_id)
def test_pandas(case, function):
    pd = pytest.importorskip("pandas")
    want = expected(case, function)
    if want is None:
        pytest.skip("no such option")
    run = python_door(lambda rows: pd.Series(rows, dtype="string[pyarrow]"))
    if "rows" in want:
        assert run(case, function) == want["rows"]
        return
    with pytest.raises(eb.ExtractError) as raised:
        run(case, function)
    check_error(raised.value, want, "python", lambda message, row: f"row {row}: {message}")


@pytest.mark.parametrize("function", FUNCTIONS)
@pytest.mark.parametrize("case", [c for c in CASES if valid_utf8(c)], ids=_id)
def test_polars_plugin(case, function):
    pl = pytest.importorskip("polars")
    from extract_between import polars as eb_polars

    want = expected(case, function)
    if want is None:
        pytest.skip("no such option")
    fn = eb_polars.extract_all if function == "all" else eb_polars.extract_first

    def run() -> Any:
        frame = pl.DataFrame({"t": pl.Series(case["rows"], dtype=pl.String)})
        return frame.select(fn("t", case["start"], case["end"], **options(case, function)))["t"].to_list()

    if "rows" in want:
        assert run() == want["rows"]
        return
    with pytest.raises((eb.ExtractError, pl.exceptions.PolarsError)) as raised:
        run()
    rows = len(case["rows"])
    name = f"extract_between_{function}"

    def placed(message: str, row: int) -> str:
        if rows == 1:
            return message
        return (
            f"row {row}: {message} (row {row} counts from the start of the batch of {rows} rows that polars "
            f"handed to {name}, not from the start of the frame)"
        )

    check_error(raised.value, want, "python", placed)


def _sql(case: Dict[str, Any], function: str) -> str:
    args = ["text", "?", "?"] + ["?" for _ in options(case, function)]
    return f"SELECT extract_between_{function}({', '.join(args)}) FROM t ORDER BY id"


@pytest.mark.parametrize("kind", ["native", "python"])
def test_duckdb(kind):
    duckdb = pytest.importorskip("duckdb")
    import extract_between.duckdb as eb_duckdb

    con = eb_duckdb.connect() if kind == "native" else duckdb.connect()
    if kind == "python":
        eb_duckdb.register(con, native=False)
    checked = 0
    for case in CASES:
        if not valid_utf8(case):
            continue
        con.register("t", pa.table({"id": list(range(len(case["rows"]))), "text": pa.array(case["rows"], pa.string())}))
        for function in FUNCTIONS:
            want = expected(case, function)
            if want is None:
                continue
            params = [case["start"], case["end"], *options(case, function).values()]
            where = (_id(case), function, kind)
            if "rows" in want:
                got = [row[0] for row in con.execute(_sql(case, function), params).fetchall()]
                assert got == want["rows"], where
                checked += 1
                continue
            with pytest.raises(duckdb.Error) as raised:
                con.execute(_sql(case, function), params).fetchall()
            rows = len(case["rows"])

            def placed(message: str, row: int) -> str:
                return message if rows == 1 else f"row {row}: {message} (row {row} counts from the start of the "

            check_error(raised.value, want, "sql", placed)
            checked += 1
        con.unregister("t")
    assert checked > 200


def test_the_vectors_are_what_their_generator_writes():
    """rows.json is written by rows.py from the card's loop, never by hand."""
    script = os.path.join(HERE, "..", "..", "testdata", "rows.py")
    subprocess.run([sys.executable, script, "--check"], check=True)
