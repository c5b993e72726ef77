"""The worker of test_malformed_arrow.py, run in its own interpreter under faulthandler: it
reads one malformed-array case per line on stdin, builds the array with pyarrow's
`from_buffers`, runs both column functions on it, and answers one JSON line a case: the
exception's type and message, or "ok" once the answer equals what the buffers say (decoded
here in plain Python, without reading the array through pyarrow). A crash kills the worker,
which the test sees as a missing answer."""

from __future__ import annotations

import json
import sys


def rows(case):
    """Each row's bytes (None for null) as the buffers say, for a case the functions
    accepted: their checks passed, so every offset and view lies inside its buffer."""
    data = [bytes.fromhex(b) if b is not None else None for b in case["buffers"]]
    validity, first, length = data[0], case["offset"], case["length"]
    cut, size = case["slice"] or (0, length)
    cut = min(cut, length)
    out = []
    for i in range(first + cut, first + min(length, cut + size)):
        if validity is not None and case["null_count"] != 0 and not (validity[i // 8] >> (i % 8)) & 1:
            out.append(None)
        elif case["type"] == "string_view":
            view = data[1][16 * i : 16 * i + 16]
            size = int.from_bytes(view[:4], "little")
            if size <= 12:
                out.append(view[4 : 4 + size])
            else:
                index = int.from_bytes(view[8:12], "little")
                at = int.from_bytes(view[12:16], "little")
                out.append(data[2 + index][at : at + size])
        else:
            width = 8 if case["type"] == "large_string" else 4
            offsets = data[1]
            a = int.from_bytes(offsets[width * i : width * i + width], "little", signed=True)
            b = int.from_bytes(offsets[width * (i + 1) : width * (i + 2)], "little", signed=True)
            out.append(data[2][a:b])
    return out


def expected(values):
    import extract_between as eb

    got_all, got_first = [], []
    for v in values:
        if v is None:
            got_all.append(None)
            got_first.append(None)
            continue
        found = []
        for cap in (1000, 1):
            try:
                found.append(eb.extract(v.decode(), "[", "]", cap).matches)
            except eb.UnclosedStartMarker:
                found.append(None)
        got_all.append(found[0])
        got_first.append(found[1][0] if found[1] else None)
    return got_all, got_first


class Foreign:
    """A producer other than pyarrow: the C interface alone, no `validate()` to lean on."""

    def __init__(self, array):
        self.array = array

    def __arrow_c_array__(self, requested_schema=None):
        return self.array.__arrow_c_array__(requested_schema)


class ForeignStream:
    """Another producer's stream: `__arrow_c_stream__` alone (as a pandas 3 Series or a
    DuckDB relation offers), its chunks crossing the C stream interface."""

    def __init__(self, chunked):
        self.chunked = chunked

    def __arrow_c_stream__(self, requested_schema=None):
        return self.chunked.__arrow_c_stream__(requested_schema)


def column(case, array):
    """`array` as the case's producer hands it over, and the rows before it: a pyarrow
    array, a ChunkedArray whose second chunk it is, a pandas Series over that ChunkedArray,
    or a foreign producer of either interface."""
    import pyarrow as pa

    producer = case["producer"]
    if producer == "array":
        return array, []
    if producer == "foreign":
        return Foreign(array), []
    chunked = pa.chunked_array([pa.array(["[x]"], array.type), array])
    if producer == "chunked":
        return chunked, [b"[x]"]
    if producer == "foreign_stream":
        return ForeignStream(chunked), [b"[x]"]
    import pandas as pd

    return pd.Series(pd.arrays.ArrowExtensionArray(chunked)), [b"[x]"]


def run(case):
    import pyarrow as pa

    import extract_between as eb

    buffers = [pa.py_buffer(bytes.fromhex(b)) if b is not None else None for b in case["buffers"]]
    array = pa.Array.from_buffers(
        getattr(pa, case["type"])(), case["length"], buffers, case["null_count"], case["offset"]
    )
    if case["slice"]:
        array = array.slice(*case["slice"])
    try:
        given, before = column(case, array)
    except Exception:
        return "ok"  # the producer itself refused the array: nothing reaches the functions
    all_ = pa.array(eb.extract_all(given, "[", "]", on_unclosed="null")).to_pylist()
    first = pa.array(eb.extract_first(given, "[", "]", on_unclosed="null")).to_pylist()
    want_all, want_first = expected(before + rows(case))
    if (all_, first) != (want_all, want_first):
        return f"wrong answer: {all_} {first}, expected {want_all} {want_first}"
    return "ok"


if __name__ == "__main__":
    for line in sys.stdin:
        try:
            answer = run(json.loads(line))
        except BaseException as e:  # every exception is an answer (a panic too); a crash is not
            answer = f"{type(e).__name__}: {e}"
        print(json.dumps(answer), flush=True)
