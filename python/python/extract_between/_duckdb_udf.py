"""The SQL functions as Python functions DuckDB calls with Arrow vectors: what
`extract_between.duckdb.register` falls back to where a connection cannot load the native
extension (unsigned extensions not allowed, a DuckDB older than 1.2.0, a build without the
extension file). Every vector crosses into Python and back, and DuckDB's ``create_function``
needs numpy.

The SQL names are TEMP macros over functions each registration names for itself, so that
any number of connections and cursors of one database can register.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from . import _native
from ._columns import extract_all, extract_first, in_batch
from ._errors import ExtractError

# What DuckDB's binder names in a type error ("No function matches ... Candidate functions:
# extract_between_all__python_3(VARCHAR, ...)"): the SQL name the user wrote, and that these
# are the Python functions.
_SUFFIX = "__python"


def _macros(names: Dict[str, str]) -> str:
    """Every arity of the SQL functions the library describes, each a macro over the one
    native-backed function `names` maps its name to: the Python API registers one signature
    per name, and SQL macros overload by arity. An argument left out is passed as NULL, which
    the library reads as the option's default. Macros are TEMP, so each connection (a cursor
    is one) has its own; the functions behind them live in the database's catalog, which
    every connection to it shares, so each registration names its own."""
    statements = []
    for function in _native._sql_functions():
        params = ['"' + a["name"] + '"' for a in function["arguments"]]
        required = sum(not a["optional"] for a in function["arguments"])
        overloads = [
            f"({', '.join(params[:n])}) AS {names[function['name']]}({', '.join(params[:n] + ['NULL'] * (len(params) - n))})"
            for n in range(required, len(params) + 1)
        ]
        statements.append(f"CREATE OR REPLACE TEMP MACRO {function['name']}" + ",\n  ".join(overloads) + ";")
    return "\n".join(statements)


# A registration's number, unique in the process: two connections to one database (two
# cursors, or two `duckdb.connect` of one file) must not register the same function name.
_REGISTRATIONS = itertools.count(1)
_LOCK = threading.Lock()
# The number each live connection registered under, to remove it when it registers again.
_REGISTERED: Dict[int, int] = {}


def register(con: duckdb.DuckDBPyConnection) -> None:
    """Registers ``extract_between_all`` and ``extract_between_first`` on `con` as Python
    functions (again on a connection that has them: the registration is replaced). Each
    connection needs its own call, a cursor too, since the SQL names are the connection's own
    macros.

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> register(con)
    >>> con.sql("SELECT extract_between_first('[a]', '[', ']')").fetchall()
    [('a',)]
    """
    with _LOCK:
        number = next(_REGISTRATIONS)
        before = _REGISTERED.get(id(con))
        _REGISTERED[id(con)] = number
    vectors = {"extract_between_all": _all_vector, "extract_between_first": _first_vector}
    names = {}
    for function in _native._sql_functions():
        name = function["name"]
        names[name] = f"{name}{_SUFFIX}_{number}"
        if before is not None:
            try:
                con.remove_function(f"{name}{_SUFFIX}_{before}")
            except duckdb.InvalidInputException:
                pass  # not this connection's (an id Python reused after a close)
        con.create_function(
            names[name],
            vectors[name],
            [duckdb.sqltype(a["type"]) for a in function["arguments"]],
            duckdb.sqltype(function["returns"]),
            type="arrow",
            # NULLs reach the function: a NULL max_matches means no cap, not a NULL answer.
            null_handling="special",
            side_effects=False,
        )
    con.execute(_macros(names))


def _all_vector(
    text: pa.ChunkedArray,
    start: pa.ChunkedArray,
    end: pa.ChunkedArray,
    max_matches: pa.ChunkedArray,
    on_unclosed: pa.ChunkedArray,
) -> pa.Array:
    def run(rows: pa.Array, s: str, e: str, options: Tuple[Any, ...]) -> pa.Array:
        cap, unclosed = options
        return pa.array(extract_all(rows, s, e, cap, unclosed))

    return _by_markers(text, start, end, [max_matches, on_unclosed], run, pa.list_(pa.string()), "extract_between_all")


def _first_vector(
    text: pa.ChunkedArray,
    start: pa.ChunkedArray,
    end: pa.ChunkedArray,
    on_unclosed: pa.ChunkedArray,
) -> pa.Array:
    def run(rows: pa.Array, s: str, e: str, options: Tuple[Any, ...]) -> pa.Array:
        (unclosed,) = options
        return pa.array(extract_first(rows, s, e, unclosed))

    return _by_markers(text, start, end, [on_unclosed], run, pa.string(), "extract_between_first")


Run = Callable[[pa.Array, str, str, Tuple[Any, ...]], pa.Array]


def _by_markers(
    text: pa.ChunkedArray,
    start: pa.ChunkedArray,
    end: pa.ChunkedArray,
    options: List[pa.ChunkedArray],
    run: Run,
    returns: pa.DataType,
    function: str,
) -> pa.Array:
    """`run` over the rows of `text`, once per distinct (start, end, options): once for the
    whole vector when they are constant. Rows whose start or end is NULL answer NULL; an
    error names its row of the vector DuckDB handed to `function`."""
    texts = text.combine_chunks()
    rows = len(texts)
    columns = [start, end, *options]
    if all(_constant(c) for c in columns):
        keys = [tuple(c[0].as_py() for c in columns)] if rows else []
        groups: Dict[Tuple[Any, ...], Optional[pa.Array]] = {key: None for key in keys}
    else:
        indices: Dict[Tuple[Any, ...], List[int]] = {}
        for row, key in enumerate(zip(*(c.to_pylist() for c in columns))):
            indices.setdefault(key, []).append(row)
        groups = {key: pa.array(rows_of, pa.int64()) for key, rows_of in indices.items()}
    pieces, order = [], []
    for key, taken in groups.items():
        s, e, *rest = key
        part = texts if taken is None else texts.take(taken)
        if s is None or e is None:
            pieces.append(pa.nulls(len(part), returns))
        else:
            _native._check_column_options(s, e, *_checked(rest), sql=True)
            try:
                pieces.append(run(part, s, e, tuple(rest)).cast(returns))
            except ExtractError as error:
                if taken is not None and error.row is not None:
                    error.row = taken[error.row].as_py()
                raise in_batch(error, rows, "DuckDB", function) from None
        if taken is not None:
            order.append(taken)
    if not pieces:
        return pa.array([], returns)
    answer = pa.concat_arrays(pieces)
    if order:
        # Back to the rows' own order: `answer` holds the groups one after another.
        answer = answer.take(pc.sort_indices(pa.concat_arrays(order)))
    return answer


def _constant(column: pa.ChunkedArray) -> bool:
    """Whether every value of `column` is the same (NULLs included), as for literals."""
    if len(column) == 0:
        return True
    first = column[0]
    if not first.is_valid:
        return column.null_count == len(column)
    if column.null_count:
        return False
    return bool(pc.all(pc.equal(column, first)).as_py())


def _checked(rest: List[Any]) -> Tuple[Optional[int], Optional[str]]:
    """The options of `rest` as `_check_column_options` takes them: ``max_matches`` (when
    `extract_between_all` has it) and ``on_unclosed`` (NULL: the library's default)."""
    if len(rest) == 2:
        return rest[0], rest[1]
    return None, rest[0]
