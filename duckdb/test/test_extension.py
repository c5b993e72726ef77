"""The native DuckDB extension (duckdb/ in the repository, the file the wheel carries): every
row equal to the library's column functions over 5,000 generated rows (NULLs, empty rows,
astral and CJK text, NUL, nested and overlapping markers, caps, the three `on_unclosed`),
per-row markers, vectors, threads, an interrupted query, a panic turned into the query's
error, and the same file in the oldest DuckDB it declares (1.2.0, a second venv) and in a
client of another language (DuckDB's Node client).

The last two need `EXTRACT_BETWEEN_DUCKDB_OLDEST_PYTHON` (an interpreter with duckdb==1.2.0)
and `EXTRACT_BETWEEN_DUCKDB_NODE_MODULES` (a folder whose node_modules holds
@duckdb/node-api); without them they are skipped, unless `EXTRACT_BETWEEN_REQUIRE_DUCKDB_CLIENTS`
is set (`.ci/run` sets all three)."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from typing import Any, List, Optional

import pyarrow as pa
import pytest

import extract_between as eb

duckdb = pytest.importorskip("duckdb")
import extract_between.duckdb as eb_duckdb  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = os.path.join(HERE, "client.mjs")
REQUIRE_CLIENTS = bool(os.environ.get("EXTRACT_BETWEEN_REQUIRE_DUCKDB_CLIENTS"))

PAIRS = [("[", "]"), ("<<", ">>"), ("😀", "中"), ("\0", "]"), ("[[", "]]"), ("é", "é")]
PIECES = ["[", "]", "<<", ">>", "😀", "中", "\0", "[[", "]]", "é", "a", "文字", "𝄞", " ", "xyz" * 5, ""]


def generated(rows: int = 5000, seed: int = 11) -> pa.Table:
    """Rows of random pieces (markers among them, so matches nest, overlap and stay open),
    every 13th NULL, each with a marker pair of `PAIRS`."""
    rng = random.Random(seed)
    texts: List[Optional[str]] = []
    for i in range(rows):
        texts.append(None if i % 13 == 0 else "".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 24))))
    pairs = [PAIRS[rng.randrange(len(PAIRS))] for _ in range(rows)]
    return pa.table(
        {
            "id": list(range(rows)),
            "text": pa.array(texts, pa.string()),
            "s": [p[0] for p in pairs],
            "e": [p[1] for p in pairs],
        }
    )


def reference_all(text: Optional[str], s: str, e: str, cap: Optional[int], policy: str) -> Any:
    """The library's column function on the one row: the answer every host must give."""
    return pa.array(eb.extract_all(pa.array([text], pa.string()), s, e, cap, policy)).to_pylist()[0]


def reference_first(text: Optional[str], s: str, e: str, policy: str) -> Any:
    return pa.array(eb.extract_first(pa.array([text], pa.string()), s, e, policy)).to_pylist()[0]


@pytest.fixture(scope="module")
def con():
    connection = eb_duckdb.connect()
    connection.register("t", generated())
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def table() -> pa.Table:
    return generated()


@pytest.mark.parametrize("cap", [None, 1, 3])
@pytest.mark.parametrize("policy", ["null", "partial"])
def test_every_row_equals_the_library_with_per_row_markers(con, table, cap, policy):
    cap_sql = "NULL" if cap is None else str(cap)
    got = con.sql(
        f"SELECT extract_between_all(text, s, e, {cap_sql}, '{policy}'), "
        f"extract_between_first(text, s, e, '{policy}') FROM t ORDER BY id"
    ).fetchall()
    texts, starts, ends = (table[c].to_pylist() for c in ("text", "s", "e"))
    assert len(got) == len(texts) == 5000
    for row, (text, s, e) in enumerate(zip(texts, starts, ends)):
        assert got[row] == (reference_all(text, s, e, cap, policy), reference_first(text, s, e, policy)), (row, text, s, e)


def test_raise_answers_every_closed_row_and_fails_on_an_unclosed_one(con, table):
    texts, starts, ends = (table[c].to_pylist() for c in ("text", "s", "e"))
    closed = [i for i, (t, s, e) in enumerate(zip(texts, starts, ends)) if reference_all(t, s, e, None, "null") is not None or t is None]
    con.execute(f"CREATE OR REPLACE TEMP TABLE closed AS SELECT * FROM t WHERE id IN ({','.join(map(str, closed))})")
    got = con.sql("SELECT id, extract_between_all(text, s, e), extract_between_first(text, s, e, NULL) FROM closed ORDER BY id").fetchall()
    assert [row[0] for row in got] == closed
    for row, every, first in got:
        assert every == reference_all(texts[row], starts[row], ends[row], None, "raise")
        assert first == reference_first(texts[row], starts[row], ends[row], "raise")
    assert len(closed) < len(texts)  # the generated rows include unclosed ones
    with pytest.raises(duckdb.InvalidInputException, match="UnclosedStartMarker: row [0-9]+: unclosed start marker at UTF-16 offset"):
        con.sql("SELECT extract_between_all(text, s, e) FROM t").fetchall()


def test_the_error_names_the_row_of_the_vector_duckdb_handed_over(tmp_path):
    con = eb_duckdb.connect()
    rows = 100_000
    con.execute(
        f"COPY (SELECT i AS id, CASE WHEN i = {rows - 1} THEN 'x [open' ELSE '[' || i || ']' END AS text "
        f"FROM range({rows}) r(i) ORDER BY i) TO '{tmp_path}/p.parquet'"
    )
    assert con.sql(f"SELECT count(extract_between_first(text, '[', ']', 'null')) FROM '{tmp_path}/p.parquet'").fetchall() == [(rows - 1,)]
    with pytest.raises(duckdb.InvalidInputException) as raised:
        con.sql(f"SELECT extract_between_all(text, '[', ']') FROM '{tmp_path}/p.parquet'").fetchall()
    message = str(raised.value)
    assert 'unclosed start marker at UTF-16 offset 2 (byte offset 2); the row begins "x [open"' in message
    # A vector of at most 2,048 rows, never the relation.
    vector = int(message.split("the vector of ")[1].split(" row")[0])
    row = int(message.split("UnclosedStartMarker: row ")[1].split(":")[0])
    assert 1 <= vector <= 2048 and row == vector - 1, message


def test_null_arguments_answer_null_and_a_null_cap_or_policy_means_the_default(con):
    got = con.sql(
        "SELECT extract_between_all(NULL, '[', ']'), extract_between_all('[a]', NULL, ']'), "
        "extract_between_first('[a]', '[', NULL), extract_between_all('[a][b]', '[', ']', NULL), "
        "extract_between_all('[a][b]', '[', ']', NULL, NULL), extract_between_first('[a]', '[', ']', NULL)"
    ).fetchall()
    assert got == [(None, None, None, ["a", "b"], ["a", "b"], "a")]


@pytest.mark.parametrize(
    "query, words",
    [
        ("SELECT extract_between_all('x', '[', '')", "end must be a non-empty string"),
        ("SELECT extract_between_all('x', repeat('a', 5000), ']')", "start must be at most"),
        ("SELECT extract_between_all('x', '[', ']', -1)", r"max_matches must be an integer from 1 to 9223372036854775807 or NULL \(it is -1\)"),
        ("SELECT extract_between_all('x', '[', ']', NULL, 'skip')", "on_unclosed must be 'raise', .* not 'skip'"),
        ("SELECT extract_between_all(s, '[', ']', 2, 'nope') FROM (VALUES (NULL)) v(s)", "on_unclosed must be"),
    ],
)
def test_bad_arguments_are_refused_naming_the_argument(con, query, words):
    with pytest.raises(duckdb.InvalidInputException, match=words):
        con.sql(query).fetchall()


def test_many_threads_answer_every_row():
    con = eb_duckdb.connect()
    con.execute("PRAGMA threads=8")
    con.execute("CREATE TABLE big AS SELECT i, '<b>' || i || '</b> and <b>' || (i * 2) || '</b>' AS text FROM range(400000) r(i)")
    got = con.sql(
        "SELECT count(*) FILTER (WHERE extract_between_all(text, '<b>', '</b>') = [i::VARCHAR, (i * 2)::VARCHAR]), "
        "count(*) FILTER (WHERE extract_between_first(text, '<b>', '</b>') = i::VARCHAR) FROM big"
    ).fetchall()
    assert got == [(400000, 400000)]


def test_a_long_query_is_interrupted():
    con = eb_duckdb.connect()
    # Not a constant text: DuckDB would answer a call on constants once.
    query = "SELECT count(extract_between_all(repeat('[a]', 200) || i, '[', ']')) FROM range(1000000000) r(i)"
    outcome: List[BaseException] = []
    started = time.monotonic()

    def run() -> None:
        try:
            con.sql(query).fetchall()
        except BaseException as e:  # noqa: BLE001 - the assertions below read it
            outcome.append(e)

    worker = threading.Thread(target=run)
    worker.start()
    # An interrupt that comes before the query starts is not kept: interrupt until the
    # query stops (it would run for minutes: 600 GB of text to scan).
    deadline = time.monotonic() + 30
    while worker.is_alive() and time.monotonic() < deadline:
        con.interrupt()
        worker.join(timeout=0.2)
    assert not worker.is_alive(), "the query did not stop"
    assert outcome and isinstance(outcome[0], duckdb.InterruptException), outcome
    assert time.monotonic() - started < 30


def test_a_panic_becomes_the_query_error_and_the_connection_goes_on():
    script = (
        "import duckdb, extract_between.duckdb as d\n"
        "con = d.connect()\n"
        "try:\n"
        "    con.sql(\"SELECT __extract_between_panic('x')\").fetchall()\n"
        "except duckdb.InvalidInputException as e:\n"
        "    print('error:', e)\n"
        "print(con.sql(\"SELECT extract_between_first('[ok]', '[', ']')\").fetchall())\n"
    )
    env = dict(os.environ, EXTRACT_BETWEEN_DUCKDB_PANIC_TEST="1")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "error: Invalid Input Error: extract_between failed (a bug, please report it): the panic test function was called" in out.stdout
    assert "[('ok',)]" in out.stdout
    # Without the variable the test function does not exist.
    with pytest.raises(duckdb.CatalogException):
        eb_duckdb.connect().sql("SELECT __extract_between_panic('x')").fetchall()


def test_register_loads_the_native_functions_or_falls_back_with_a_warning():
    allowed = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    eb_duckdb.register(allowed)
    assert allowed.sql("SELECT count(*) FROM duckdb_functions() WHERE function_name = 'extract_between_all'").fetchall() == [(3,)]
    plain = duckdb.connect()
    with pytest.warns(eb_duckdb.NativeExtensionWarning, match="allow_unsigned_extensions"):
        eb_duckdb.register(plain)
    assert plain.sql("SELECT extract_between_all('[a]', '[', ']', NULL)").fetchall() == [(["a"],)]
    with pytest.raises(duckdb.Error):
        eb_duckdb.register(duckdb.connect(), native=True)


def skip_or_fail(reason: str) -> None:
    if REQUIRE_CLIENTS:
        pytest.fail(f"EXTRACT_BETWEEN_REQUIRE_DUCKDB_CLIENTS is set but {reason}")
    pytest.skip(reason)


CLIENT_QUERIES = [
    "SELECT extract_between_all(text, s, e, NULL, 'partial'), extract_between_first(text, s, e, 'null') "
    "FROM (VALUES ('a[1]b[2]', '[', ']'), ('😀<<中>> <<x', '<<', '>>'), (NULL, '[', ']'), ('[open', '[', NULL)) v(text, s, e)",
    "SELECT extract_between_all('[a][b][c]', '[', ']', 2)",
    "SELECT extract_between_all('x [oops', '[', ']')",
]
CLIENT_ROWS = [
    [[["1", "2"], "1"], [["中"], None], [None, None], [None, None]],
    [[["a", "b"]]],
]


def released(template: str, folder) -> str:
    """Copies the wheel's extension files (`template` with `{p}` for the platform) to `folder`
    under the names a release gives them; answers the copies' template."""
    for platform in ("linux_amd64", "linux_amd64_gcc4", "linux_arm64", "linux_arm64_gcc4"):
        source = template.replace("{p}", platform)
        if os.path.exists(source):
            shutil.copyfile(source, os.path.join(folder, f"extract_between.{platform}.duckdb_extension"))
    return os.path.join(folder, "extract_between.{p}.duckdb_extension")


def test_the_oldest_duckdb_declared_loads_the_same_file(tmp_path):
    python = os.environ.get("EXTRACT_BETWEEN_DUCKDB_OLDEST_PYTHON")
    if not python:
        skip_or_fail("EXTRACT_BETWEEN_DUCKDB_OLDEST_PYTHON names no interpreter with duckdb==1.2.0")
    script = (
        "import json, sys, duckdb\n"
        "con = duckdb.connect(config={'allow_unsigned_extensions': 'true'})\n"
        "(platform,) = con.execute('PRAGMA platform').fetchone()\n"
        "con.execute(\"LOAD '\" + sys.argv[1].replace('{p}', platform) + \"'\")\n"
        "print(json.dumps({'version': duckdb.__version__}))\n"
        "for q in json.loads(sys.argv[2]):\n"
        "    try:\n"
        "        print(json.dumps({'rows': [list(r) for r in con.sql(q).fetchall()]}))\n"
        "    except duckdb.Error as e:\n"
        "        print(json.dumps({'error': str(e)}))\n"
    )
    # The files under their release names (extract_between.PLATFORM.duckdb_extension), not
    # renamed: DuckDB takes the extension's name from the file name up to its first dot.
    template = released(eb_duckdb.extension_path().replace("linux_amd64", "{p}"), tmp_path)
    out = subprocess.run([python, "-c", script, template, json.dumps(CLIENT_QUERIES)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines[0] == {"version": "1.2.0"}
    assert [line["rows"] for line in lines[1:3]] == CLIENT_ROWS
    assert lines[3]["error"].startswith("Invalid Input Error: UnclosedStartMarker: unclosed start marker at UTF-16 offset 2")


def test_the_node_client_loads_the_same_file(tmp_path):
    modules = os.environ.get("EXTRACT_BETWEEN_DUCKDB_NODE_MODULES")
    node = shutil.which("node")
    if not modules or not node:
        skip_or_fail("EXTRACT_BETWEEN_DUCKDB_NODE_MODULES names no folder with node_modules/@duckdb/node-api, or there is no node")
    # Node resolves the package from the script's folder up.
    script = os.path.join(modules, "extract-between-client.mjs")
    shutil.copyfile(CLIENT, script)
    queries = CLIENT_QUERIES + ["SELECT version()"]
    platform = os.path.basename(os.path.dirname(eb_duckdb.extension_path()))
    release_name = released(eb_duckdb.extension_path().replace(platform, "{p}"), tmp_path).replace("{p}", platform)
    out = subprocess.run([node, script, release_name, json.dumps(queries)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["rows"] for line in lines[:2]] == CLIENT_ROWS
    assert lines[2]["error"].startswith("Invalid Input Error: UnclosedStartMarker: unclosed start marker at UTF-16 offset 2")
    print("node client's DuckDB:", lines[3]["rows"][0][0])
