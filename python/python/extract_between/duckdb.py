"""DuckDB SQL functions:

- ``extract_between_all(text, start, end[, max_matches[, on_unclosed]])`` → ``VARCHAR[]``
  (``max_matches`` NULL or left out: no cap),
- ``extract_between_first(text, start, end[, on_unclosed])`` → ``VARCHAR``.

A NULL text, start or end answers NULL; ``on_unclosed`` is ``'raise'`` (the default, and
what NULL means), ``'null'`` or ``'partial'``, as for `extract_between.extract_all`. An
unclosed start marker under ``'raise'`` fails the query with the card's error, naming the row
within the vector DuckDB handed over and the start of the row's text.

They come from the native DuckDB extension this package ships (Linux wheels): DuckDB runs
them vector by vector in its own threads, no row crosses into Python, numpy is not needed,
and every other DuckDB client (the CLI, Node, R, Java) can ``LOAD`` the same file
(`extension_path`). The extension is not signed yet, so DuckDB loads it only into a
database opened with ``allow_unsigned_extensions``: `connect` opens one, and `register`
loads it into a connection where that is allowed, falling back (with a
`NativeExtensionWarning` that says why) to the same functions written in Python.

>>> import extract_between.duckdb
>>> con = extract_between.duckdb.connect()
>>> con.sql("SELECT extract_between_all('pre[one]mid[two]post', '[', ']') AS m").fetchall()
[(['one', 'two'],)]
>>> con.sql("SELECT extract_between_first('a <b>x</b>', '<b>', '</b>') AS m").fetchall()
[('x',)]
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Dict, Optional

import duckdb

_EXTENSIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "extensions")


class NativeExtensionWarning(UserWarning):
    """`register` could not load the native extension and registered the Python functions."""


def extension_path(platform: str = "linux_amd64") -> str:
    """The native extension file this package ships for DuckDB's `platform` (what ``PRAGMA
    platform`` answers: ``linux_amd64``, or ``linux_amd64_gcc4`` in DuckDB's Python wheels
    before 1.3), for ``LOAD '<path>'`` from any DuckDB client (1.2.0 or newer) whose
    database allows unsigned extensions. A build of the package without it (another
    platform, the sdist, a development install) raises ``FileNotFoundError`` saying how to
    build it.

    >>> extension_path().endswith("extract_between.duckdb_extension")   # doctest: +SKIP
    True
    """
    path = os.path.join(_EXTENSIONS, platform, "extract_between.duckdb_extension")
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"this build of extract_between has no DuckDB extension for {platform} at {path}: "
            "the Linux wheels carry it; in a checkout, `bash duckdb/build.sh` builds it into "
            "target/duckdb/<platform>/, to copy to python/python/extract_between/extensions/"
            "<platform>/"
        )
    return path


def connect(
    database: str = ":memory:",
    read_only: bool = False,
    config: Optional[Dict[str, Any]] = None,
) -> duckdb.DuckDBPyConnection:
    """``duckdb.connect(database, read_only, config)`` with the native extension loaded: the
    database is opened with ``allow_unsigned_extensions`` (added to `config`), which the
    unsigned extension needs. Its cursors, and every connection to the same database, have
    the functions too.

    >>> con = connect()
    >>> con.cursor().sql("SELECT extract_between_all('[a][b]', '[', ']', 1)").fetchall()
    [(['a'],)]
    """
    settings = dict(config or {})
    settings.setdefault("allow_unsigned_extensions", "true")
    con = duckdb.connect(database, read_only=read_only, config=settings)
    try:
        load(con)
    except BaseException:
        con.close()
        raise
    return con


def load(con: duckdb.DuckDBPyConnection) -> None:
    """Loads the native extension into `con`'s database (again: nothing happens). Raises
    DuckDB's error where the database does not allow unsigned extensions, and
    ``FileNotFoundError`` where this build has no extension (`extension_path`)."""
    (platform,) = con.execute("PRAGMA platform").fetchone() or ("",)
    path = extension_path(platform).replace("'", "''")
    con.execute(f"LOAD '{path}'")


def register(con: duckdb.DuckDBPyConnection, native: Optional[bool] = None) -> None:
    """Gives `con` ``extract_between_all`` and ``extract_between_first``.

    - ``native=None`` (the default): the native extension where `con` can load it, else the
      Python functions, with a `NativeExtensionWarning` saying why and how to get the native
      ones (`connect`, or a database opened with ``allow_unsigned_extensions``);
    - ``native=True``: the native extension, or DuckDB's error;
    - ``native=False``: the Python functions (a vector at a time through Arrow; they need
      pyarrow and numpy), registered on this connection only: each cursor needs its own call.

    >>> import duckdb
    >>> con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    >>> register(con)
    >>> con.sql("SELECT extract_between_first('[a]', '[', ']')").fetchall()
    [('a',)]
    """
    if native is not False:
        try:
            load(con)
            return
        except (duckdb.Error, FileNotFoundError) as error:
            if native:
                raise
            warnings.warn(
                NativeExtensionWarning(
                    f"extract_between.duckdb: the native extension did not load ({error}); "
                    "the SQL functions are the Python ones, which cross into Python for every "
                    "vector. For the native ones, open the database with "
                    "extract_between.duckdb.connect() or "
                    "duckdb.connect(config={'allow_unsigned_extensions': 'true'})."
                ),
                stacklevel=2,
            )
    try:
        from . import _duckdb_udf
    except ModuleNotFoundError as missing:
        raise ModuleNotFoundError(
            f"extract_between.duckdb: the Python SQL functions need {missing.name}, which is not "
            'installed: pip install "extract-between[duckdb-python-functions]" (or open the '
            "database with extract_between.duckdb.connect() for the native extension, which "
            "needs neither)",
            name=missing.name,
        ) from missing
    _duckdb_udf.register(con)
