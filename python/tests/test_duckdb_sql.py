"""`extract_between.duckdb`: the SQL functions on a real DuckDB connection, every answer
checked against `extract` row by row: literal and per-row markers, NULLs, the options, the
card's errors with their row, and a query streamed through in DuckDB's vectors. Each test runs
twice: on the native extension (`connect`) and on the Python functions `register` falls back
to (`native=False`). The native extension's own concerns (threads, interrupt, the oldest
DuckDB, other clients) and its SQL tests are in duckdb/test/."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import List, Optional

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import extract_between as eb

duckdb = pytest.importorskip("duckdb")
import extract_between.duckdb as eb_duckdb  # noqa: E402


KINDS = ["native", "python"]


def connect(kind: str, database: str = ":memory:"):
    """A connection with the functions: the native extension loaded, or the Python ones."""
    if kind == "native":
        return eb_duckdb.connect(database)
    connection = duckdb.connect(database)
    eb_duckdb.register(connection, native=False)
    return connection


def register(kind: str, connection) -> None:
    eb_duckdb.register(connection, native=kind == "native")


@pytest.fixture(params=KINDS)
def con(request):
    connection = connect(request.param)
    yield connection
    connection.close()


def everything(text: str, start: str, end: str, cap: Optional[int] = None) -> List[str]:
    """The reference: every match, then the first `cap` of them."""
    found = [m.text for m in eb.finditer(text, start, end)]
    return found if cap is None else found[:cap]


def test_literal_markers_answer_as_extract_on_every_row(con):
    texts = [f"<b>{i}</b> x <b>é{i}😀</b>" if i % 7 else None for i in range(5000)]
    con.register("docs", pa.table({"id": list(range(5000)), "text": pa.array(texts, pa.string())}))
    rows = con.sql(
        "SELECT id, extract_between_all(text, '<b>', '</b>'), extract_between_first(text, '<b>', '</b>'), "
        "extract_between_all(text, '<b>', '</b>', 1) FROM docs ORDER BY id"
    ).fetchall()
    assert len(rows) == 5000
    for (i, every, first, capped), text in zip(rows, texts):
        if text is None:
            assert (every, first, capped) == (None, None, None)
        else:
            assert every == everything(text, "<b>", "</b>")
            assert first == every[0]
            assert capped == every[:1]


def test_markers_from_columns_are_taken_row_by_row(con):
    table = pa.table(
        {
            "id": [0, 1, 2, 3, 4, 5],
            "text": ["[a]{b}", "[a]{b}", "<x>y</x>", None, "[c]", "(d)"],
            "s": ["[", "{", "<x>", "[", None, "("],
            "e": ["]", "}", "</x>", "]", "]", ")"],
        }
    )
    con.register("t", table)
    rows = con.sql("SELECT id, extract_between_all(text, s, e), extract_between_first(text, s, e) FROM t ORDER BY id").fetchall()
    assert rows == [
        (0, ["a"], "a"),
        (1, ["b"], "b"),
        (2, ["y"], "y"),
        (3, None, None),  # a NULL text
        (4, None, None),  # a NULL marker
        (5, ["d"], "d"),
    ]


def test_max_matches_null_means_no_cap_and_on_unclosed_chooses(con):
    assert con.sql("SELECT extract_between_all('[a][b][c]', '[', ']', NULL)").fetchall() == [(["a", "b", "c"],)]
    assert con.sql("SELECT extract_between_all('[a][b][c]', '[', ']', 2)").fetchall() == [(["a", "b"],)]
    row = con.sql(
        "SELECT extract_between_all('[a] [b', '[', ']', NULL, 'partial'), "
        "extract_between_all('[a] [b', '[', ']', NULL, 'null'), "
        "extract_between_first('x [b', '[', ']', 'null')"
    ).fetchall()
    assert row == [(["a"], None, None)]


def test_an_unclosed_marker_fails_the_query_naming_the_row_of_the_vector(con):
    con.register("t", pa.table({"text": ["[ok]", "fine", "x [oops"]}))
    with pytest.raises(duckdb.InvalidInputException) as raised:
        con.sql("SELECT extract_between_all(text, '[', ']') FROM t").fetchall()
    message = str(raised.value)
    assert 'UnclosedStartMarker: row 2: unclosed start marker at UTF-16 offset 2 (byte offset 2); the row begins "x [oops"' in message
    assert "DuckDB" in message


def test_constant_arguments_fail_without_talk_of_rows_or_vectors(con):
    with pytest.raises(duckdb.InvalidInputException) as raised:
        con.sql("SELECT extract_between_all('x [open', '[', ']')").fetchall()
    message = str(raised.value)
    assert 'UnclosedStartMarker: unclosed start marker at UTF-16 offset 2 (byte offset 2); the row begins "x [open"' in message
    assert "row 0" not in message and "vector" not in message and "batch" not in message, message


def test_per_row_markers_name_the_row_of_the_vector_too(con):
    con.register("t", pa.table({"text": ["{a}", "[ok]", "x {oops"], "s": ["{", "[", "{"], "e": ["}", "]", "}"]}))
    with pytest.raises(duckdb.InvalidInputException, match="row 2: unclosed start marker at UTF-16 offset 2"):
        con.sql("SELECT extract_between_all(text, s, e) FROM t").fetchall()


@pytest.mark.parametrize(
    "query, words",
    [
        ("SELECT extract_between_all('x', '', ']')", "start must be a non-empty string"),
        ("SELECT extract_between_all('x', '[', ']', 0)", "max_matches must be an integer from 1 to 9223372036854775807"),
        ("SELECT extract_between_first('x', '[', ']', 'sometimes')", "on_unclosed must be"),
    ],
)
def test_bad_arguments_are_refused_with_the_reason(con, query, words):
    with pytest.raises(duckdb.InvalidInputException, match=words):
        con.sql(query).fetchall()


@pytest.mark.parametrize(
    "query, called",
    [
        ("SELECT extract_between_all(42, '[', ']')", "extract_between_all"),
        ("SELECT extract_between_first([1, 2], '[', ']')", "extract_between_first"),
    ],
)
def test_a_type_error_names_the_function_called_and_the_types_it_takes(con, query, called):
    with pytest.raises(duckdb.BinderException) as raised:
        con.sql(query).fetchall()
    message = str(raised.value)
    # The native extension's own name; the fallback's says it is the Python function.
    assert re.search(rf"'{called}(__python_\d+)?\(", message) and "VARCHAR" in message, message
    assert "__extract" not in message, message


def test_a_parquet_query_streams_through_in_vectors(tmp_path, monkeypatch):
    from extract_between import _duckdb_udf

    con = connect("python")
    rows = 20_000
    texts = [f"<title>t{i}</title><p>{'x' * (i % 50)}</p>" for i in range(rows)]
    pq.write_table(pa.table({"html": texts}), tmp_path / "pages.parquet", row_group_size=4096)
    seen: List[int] = []
    by_markers = _duckdb_udf._by_markers

    def counted(text, *rest):
        seen.append(len(text))
        return by_markers(text, *rest)

    monkeypatch.setattr(_duckdb_udf, "_by_markers", counted)
    answer = con.sql(
        f"SELECT count(*), count(DISTINCT extract_between_first(html, '<title>', '</title>')) "
        f"FROM '{tmp_path}/pages.parquet'"
    ).fetchall()
    assert answer == [(rows, rows)]
    # Vector by vector, never the relation at once.
    assert sum(seen) == rows and max(seen) <= 2048, seen[:5]


@pytest.mark.parametrize("kind", KINDS)
def test_registering_twice_replaces_the_functions(kind):
    con = connect(kind)
    register(kind, con)
    assert con.sql("SELECT extract_between_first('[a]', '[', ']')").fetchall() == [("a",)]


@pytest.mark.parametrize("kind", KINDS)
def test_a_cursor_and_its_connection_each_register_and_call(kind):
    con = connect(kind)
    cur = con.cursor()
    register(kind, cur)
    for c in (con, cur):
        assert c.sql("SELECT extract_between_all('[a][b]', '[', ']')").fetchall() == [(["a", "b"],)]
    second = con.cursor()
    register(kind, second)
    register(kind, second)  # again on the same cursor: replaced, not refused
    assert second.sql("SELECT extract_between_first('x<b>y</b>', '<b>', '</b>')").fetchall() == [("y",)]
    # The first cursor's functions outlive the second's replacement.
    assert cur.sql("SELECT extract_between_first('[c]', '[', ']')").fetchall() == [("c",)]
    con.close()


@pytest.mark.parametrize("kind", KINDS)
def test_two_connections_to_one_database_file_both_register(tmp_path, kind):
    path = str(tmp_path / "x.db")
    first, second = connect(kind, path), connect(kind, path)
    try:
        for c in (first, second):
            register(kind, c)
        for c in (first, second):
            assert c.sql("SELECT extract_between_first('[z]', '[', ']')").fetchall() == [("z",)]
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("kind", KINDS)
def test_a_cursor_per_thread_registers_and_queries_at_once(kind):
    import threading

    con = connect(kind)
    con.execute("CREATE TABLE t AS SELECT '[' || i || ']' AS text FROM range(3000) r(i)")
    answers, errors = {}, []

    def worker(n: int) -> None:
        try:
            cur = con.cursor()
            register(kind, cur)
            answers[n] = cur.sql("SELECT count(*) FILTER (WHERE extract_between_first(text, '[', ']') = substr(text, 2, length(text) - 2)) FROM t").fetchall()
        except Exception as e:  # noqa: BLE001 - the assertion below reports it
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert answers == {n: [(3000,)] for n in range(4)}
    con.close()


def test_the_python_functions_without_pyarrow_say_what_to_install():
    # A process where pyarrow cannot be imported, as in an environment without it.
    script = (
        "import sys, warnings\n"
        "sys.modules['pyarrow'] = None\n"
        "import duckdb\n"
        "from extract_between import duckdb as eb_duckdb\n"
        "try:\n"
        "    eb_duckdb.register(duckdb.connect(), native=False)\n"
        "except ModuleNotFoundError as e:\n"
        "    print(e.name, '|', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("pyarrow |"), out.stdout
    assert 'pip install "extract-between[duckdb-python-functions]"' in out.stdout
