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
from typing import Any, Callable, Dict, List

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


# Each case with each function that has its options (`first` takes no cap).
CALLS = [(case, function) for case in CASES for function in FUNCTIONS if function in case]
CALL_IDS = [f"{_id(case)} {function}" for case, function in CALLS]


def column(rows: List[Any]) -> pa.Array:
    """The rows as an Arrow string column, bytes that are not UTF-8 included (a view of a
    binary column: Arrow's string type without its check)."""
    raw = [None if r is None else bytes.fromhex(r["utf8_hex"]) if isinstance(r, dict) else r.encode() for r in rows]
    return pa.array(raw, pa.binary()).view(pa.string())


def valid_utf8(case: Dict[str, Any]) -> bool:
    return not any(isinstance(r, dict) for r in case["rows"])


def valid_calls():
    """The calls whose rows are all UTF-8 (what pandas and polars can hold), and their ids."""
    kept = [i for i, (case, _) in enumerate(CALLS) if valid_utf8(case)]
    return [CALLS[i] for i in kept], [CALL_IDS[i] for i in kept]


VALID_CALLS, VALID_IDS = valid_calls()


def options(case: Dict[str, Any], function: str) -> Dict[str, Any]:
    keys = ("max_matches", "on_unclosed") if function == "all" else ("on_unclosed",)
    return {k: case[k] for k in keys if k in case}


def expected(case: Dict[str, Any], function: str) -> Dict[str, Any]:
    """The case's answer for `function` in the columns' form."""
    answer = case[function]
    if "rows" in answer and function == "all":
        return {"rows": [None if r is None else r["matches"] for r in answer["rows"]]}
    return answer


def check_error(raised: BaseException, want: Dict[str, Any], spelling: str, placed: Callable[[str, int], str]) -> None:
    """`raised` is the vector's error: its class, words (with the door's place) and row."""
    want = want["error"]
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


@pytest.mark.parametrize("case,function", CALLS, ids=CALL_IDS)
def test_pyarrow(case, function):
    want = expected(case, function)
    run = python_door(column)
    if "rows" in want:
        assert run(case, function) == want["rows"]
        return
    with pytest.raises(eb.ExtractError) as raised:
        run(case, function)
    error, want = raised.value, want["error"]
    assert type(error).__name__ == want["class"]
    if want["class"] == "InvalidInput":
        assert str(error) == want["messages"]["python"]
        assert error.field == want["option"]
        return
    assert (error.message, error.row) == (want["message"], want["row"])
    assert str(error) == f"row {want['row']}: {want['message']}"
    assert [m for m in error.matches] == want["matches"] or not error.matches


@pytest.mark.parametrize("case,function", VALID_CALLS, ids=VALID_IDS)
def test_pandas(case, function):
    pd = pytest.importorskip("pandas")
    want = expected(case, function)
    run = python_door(lambda rows: pd.Series(rows, dtype="string[pyarrow]"))
    if "rows" in want:
        assert run(case, function) == want["rows"]
        return
    with pytest.raises(eb.ExtractError) as raised:
        run(case, function)
    check_error(raised.value, want, "python", lambda message, row: f"row {row}: {message}")


@pytest.mark.parametrize("case,function", VALID_CALLS, ids=VALID_IDS)
def test_polars_plugin(case, function):
    pl = pytest.importorskip("polars")
    from extract_between import polars as eb_polars

    want = expected(case, function)
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


def sql_options(case: Dict[str, Any], function: str) -> List[Any]:
    """The options as SQL's positional arguments: a NULL cap before a policy when the case
    has none."""
    if function == "first":
        return [case["on_unclosed"]] if "on_unclosed" in case else []
    if "on_unclosed" in case:
        return [case.get("max_matches"), case["on_unclosed"]]
    return [case["max_matches"]] if "max_matches" in case else []


def _sql(case: Dict[str, Any], function: str) -> str:
    args = ["text", "?", "?"] + ["?" for _ in sql_options(case, function)]
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
        for function in [f for f in FUNCTIONS if f in case]:
            want = expected(case, function)
            params = [case["start"], case["end"], *sql_options(case, function)]
            where = (_id(case), function, kind)
            if "rows" in want:
                got = [row[0] for row in con.execute(_sql(case, function), params).fetchall()]
                assert got == want["rows"], where
                checked += 1
                continue
            with pytest.raises(duckdb.Error) as raised:
                con.execute(_sql(case, function), params).fetchall()
            if not -(2**63) <= case.get("max_matches", 0) < 2**63:
                # Past BIGINT, the argument has no type the function takes: DuckDB's binder says so.
                assert isinstance(raised.value, duckdb.BinderException), where
                assert f"extract_between_{function}" in str(raised.value), where
                continue
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
