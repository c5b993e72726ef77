"""Runs the extension's SQL tests, `sql/*.test`, written in DuckDB's sqllogictest format as
the extension template keeps them: through the duckdb Python client, the extension file the
package carries loaded at `require extract_between`. DuckDB's own runner (`make test` in the
template, from DuckDB's source tree) runs the same files; its runner is not on a package
registry, so this file runs the part of the format the files use:

- `statement ok` / `statement error` then the SQL, and for an error, after `----`, text the
  error's message contains;
- `query <one letter a column> [nosort|rowsort]` then the SQL, `----` and the rows, columns
  separated by a tab, as DuckDB's runner prints values (DuckDB's own text of each: a list as
  `[a, b]`; `NULL`, and `(empty)` for an empty string);
- `require extract_between` loads the extension; `#` starts a comment.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from typing import List, Optional

import pytest

duckdb = pytest.importorskip("duckdb")
import extract_between.duckdb as eb_duckdb  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = sorted(glob.glob(os.path.join(HERE, "sql", "*.test")))


@dataclass
class Record:
    line: int
    kind: str  # "statement", "query", "require"
    header: List[str]
    sql: str
    expected: Optional[List[str]]


def records(path: str) -> List[Record]:
    """The records of a sqllogictest file: blank lines end each."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.startswith("#"):
            i += 1
            continue
        start, header = i + 1, line.split()
        i += 1
        if header[0] == "require":
            out.append(Record(start, "require", header, "", None))
            continue
        if header[0] not in ("statement", "query"):
            raise ValueError(f"{path}:{start}: a record this runner does not know: {line!r}")
        body: List[str] = []
        while i < len(lines) and lines[i].strip() and lines[i] != "----":
            body.append(lines[i])
            i += 1
        expected = None
        if i < len(lines) and lines[i] == "----":
            i += 1
            expected = []
            while i < len(lines) and lines[i].strip():
                expected.append(lines[i])
                i += 1
        out.append(Record(start, header[0], header, "\n".join(body), expected))
    return out


def shown(value: Optional[str]) -> str:
    """A value DuckDB wrote as text, as its runner prints it."""
    if value is None:
        return "NULL"
    return value if value else "(empty)"


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_sql(path):
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    for record in records(path):
        where = f"{os.path.relpath(path, HERE)}:{record.line}"
        if record.kind == "require":
            assert record.header[1:] == ["extract_between"], where
            eb_duckdb.load(con)
        elif record.kind == "statement" and record.header[1] == "ok":
            con.execute(record.sql)
        elif record.kind == "statement":
            assert record.header[1] == "error", where
            with pytest.raises(duckdb.Error) as raised:
                con.execute(record.sql).fetchall()
            for words in record.expected or []:
                assert words in str(raised.value), f"{where}: {raised.value}"
        else:
            # Each value as DuckDB itself writes it as text (a list as `[a, b]`), as its runner.
            as_text = f"SELECT COLUMNS(*)::VARCHAR FROM ({record.sql.rstrip().rstrip(';')})"
            rows = con.execute(as_text).fetchall()
            columns = len(record.header[1])
            got = ["\t".join(shown(v) for v in row) for row in rows]
            assert all(len(row) == columns for row in rows), where
            expected = record.expected or []
            if record.header[2:] == ["rowsort"]:
                got, expected = sorted(got), sorted(expected)
            assert got == expected, where
    con.close()


def test_every_file_has_records_and_loads_the_extension():
    assert len(FILES) >= 3
    for path in FILES:
        kinds = [r.kind for r in records(path)]
        assert "require" in kinds and kinds.count("query") + kinds.count("statement") > 3, path
