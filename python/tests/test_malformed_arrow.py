"""Malformed Arrow arrays from a careless or hostile producer: every one ends in an exception
or in a correct answer, never in a crash. Random arrays of the three string layouts are built
with pyarrow's `from_buffers` (offsets that decrease or point outside, views into buffers
that do not exist or past their end, validity bitmaps and null counts that disagree), sliced
or not, handed over as pyarrow arrays or through the bare C interface, and run in a worker
interpreter under faulthandler."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import extract_between as eb

WORKER = os.path.join(os.path.dirname(__file__), "malformed_worker.py")
TEXT = st.binary(max_size=24).map(lambda b: b.replace(b"\x00", b"[")) | st.sampled_from(
    [b"[a][b]", b"x[\xc3\xa9]y", b"[unclosed", b"\xff[a]", b"[" + b"z" * 20 + b"]"]
)


class Worker:
    """One interpreter that answers case after case; a new one after a crash."""

    def __init__(self):
        self.proc = None

    def ask(self, case):
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, "-X", "faulthandler", WORKER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            stderr = self.proc.stderr.read()
            self.proc = None
            pytest.fail(f"the worker died ({stderr.strip()[-2000:]}) on {case!r}")
        return json.loads(line)

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()


@st.composite
def cases(draw):
    kind = draw(st.sampled_from(["string", "large_string", "string_view"]))
    length = draw(st.integers(0, 5))
    offset = draw(st.integers(0, 3))
    total = length + offset
    producer = draw(st.sampled_from(["array", "chunked", "pandas", "foreign", "foreign_stream"]))
    foreign = producer.startswith("foreign")
    # Through the bare C interface nothing says how large a buffer is: sizes are kept
    # whole there (see docs/SCALING.md); pyarrow arrays may have short buffers too.
    short = not foreign and draw(st.booleans())
    if draw(st.booleans()):
        bits = draw(st.lists(st.booleans(), min_size=total, max_size=total))
        validity = bytes(sum(b << i for i, b in enumerate(bits[k : k + 8])) for k in range(0, total, 8)) or b"\x00"
        nulls = total - sum(bits)
        null_count = draw(st.sampled_from([-1, nulls, nulls + 1, max(nulls - 1, 0), 0]))
    else:
        validity, null_count = None, draw(st.sampled_from([-1, 0]))
    if kind == "string_view":
        data = draw(st.lists(TEXT, min_size=0, max_size=2))
        views = b""
        for _ in range(total):
            size = draw(st.sampled_from([0, 3, 12, 13, 20, 1 << 20, 0xFFFFFFFF]) | st.integers(0, 40))
            inline = draw(TEXT)[:12].ljust(12, b"[")
            index = draw(st.integers(0, 3))
            at = draw(st.integers(0, 30) | st.sampled_from([0xFFFFFFF0]))
            if size <= 12:
                views += struct.pack("<I", size) + inline
            else:
                views += struct.pack("<I4sII", size, inline[:4], index, at)
        if short:
            views = views[: draw(st.integers(0, len(views)))]
        buffers = [validity, views, *data]
    else:
        width = 8 if kind == "large_string" else 4
        values = draw(TEXT)
        bound = 2**31 - 1 if width == 4 else 2**63 - 1
        offsets = draw(
            st.lists(
                st.integers(-3, len(values) + 3) | st.sampled_from([-bound - 1, bound]),
                min_size=total + 1,
                max_size=total + 1,
            )
        )
        if foreign:
            # Through the bare C interface the importer takes the last offset (of the array
            # or of a slice of it) for the values buffer's size: one past the real buffer is a
            # lie no consumer can see, so none is past it here.
            offsets = [min(o, len(values)) for o in offsets]
        packed = b"".join(o.to_bytes(width, "little", signed=True) for o in offsets)
        if short:
            packed = packed[: draw(st.integers(0, len(packed)))]
        buffers = [validity, packed, values]
    cut = draw(st.none() | st.tuples(st.integers(0, length), st.integers(0, length)))
    return {
        "type": kind,
        "length": length,
        "offset": offset,
        "null_count": null_count,
        "buffers": [b.hex() if b is not None else None for b in buffers],
        "slice": cut,
        "producer": producer,
    }


@settings(max_examples=int(os.environ.get("MALFORMED_EXAMPLES", "400")), deadline=None)
@given(cases())
def test_malformed_arrays_raise_or_answer_right_never_crash(worker, case):
    answer = worker.ask(case)
    assert answer == "ok" or answer.split(":")[0] in {
        "ValueError",
        "ArrowInvalid",
        "ExtractError",
        "InvalidUtf8",
        "TypeError",
    }, f"{answer} on {case!r}"


def test_the_reported_crash_names_the_row_and_what_is_wrong():
    offsets = pa.array([0, 5, 2], pa.int32()).buffers()[1]
    bad = pa.Array.from_buffers(pa.string(), 2, [None, offsets, pa.py_buffer(b"[a][b]")])
    with pytest.raises(ValueError, match=r"row 1 ends at offset 2, before it starts \(5\)"):
        eb.extract_all(bad, "[", "]", on_unclosed="null")


def views(*items):
    return pa.py_buffer(b"".join(struct.pack("<I4sII", size, b"[aaa", index, at) for size, index, at in items))


def test_a_view_past_its_buffer_or_into_a_missing_one_is_refused():
    data = pa.py_buffer(b"[" + b"a" * 30 + b"]")
    past = pa.Array.from_buffers(pa.string_view(), 1, [None, views((100, 0, 0)), data])
    with pytest.raises(ValueError, match=r"row 0 spans bytes 0..100 of data buffer 0, which holds 32 bytes"):
        eb.extract_all(past, "[", "]")
    missing = pa.Array.from_buffers(pa.string_view(), 2, [None, views((20, 0, 0), (20, 3, 0)), data])
    with pytest.raises(ValueError, match=r"row 1 points into data buffer 3, which does not exist \(1 buffers\)"):
        eb.extract_first(missing, "[", "]")


def test_a_null_count_that_disagrees_with_the_bitmap_is_refused():
    column = pa.array(["[a]", None, "[b]"])
    validity, offsets, values = column.buffers()
    lying = pa.Array.from_buffers(pa.string(), 3, [validity, offsets, values], null_count=2)
    with pytest.raises(ValueError, match="null count is 2 but its validity bitmap marks 1 rows null"):
        eb.extract_all(lying, "[", "]")


def test_a_chunked_array_or_pandas_series_whose_offsets_run_past_the_buffer_is_refused():
    import pandas as pd

    # pyarrow checks an array it builds; its buffers' memory, changed afterwards, is not.
    offsets = bytearray(struct.pack("<3i", 0, 3, 3))
    bad = pa.Array.from_buffers(pa.string(), 2, [None, pa.py_buffer(offsets), pa.py_buffer(b"[a]" + b"x" * 65_533)])
    offsets[8:12] = struct.pack("<i", 70_000)
    chunked = pa.chunked_array([pa.array(["[x]"]), bad])
    for column in (chunked, pd.Series(pd.arrays.ArrowExtensionArray(chunked))):
        with pytest.raises(ValueError, match="column is a malformed Arrow array"):
            eb.extract_all(column, "[", "]", on_unclosed="null")
        with pytest.raises(ValueError, match="column is a malformed Arrow array"):
            eb.extract_first(column, "[", "]", on_unclosed="null")


def test_a_module_named_like_an_engine_is_not_taken_for_it():
    from extract_between import _columns

    column = pa.array(["[a]"])
    impostor = type("Series", (), {"__module__": "polars_anything", "__arrow_c_array__": column.__arrow_c_array__})()
    # Not passed through as an engine's own export: pyarrow's import and check come first.
    checked = _columns._arrow(impostor)
    assert checked is not impostor and isinstance(checked, pa.Array)
    assert pa.array(eb.extract_all(impostor, "[", "]")).to_pylist() == [["a"]]
