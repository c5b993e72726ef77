"""The package under attack: what a hostile or careless caller did to it, each a test. A
thread's panic fails the call and loses no row; file objects that lie are refused by name;
struct-level nulls stay null; a scanner that has ended says so; errors keep their meaning
through polars and process pools; a match still open is bounded; long calls leave the GIL
to other threads and stop on Ctrl-C; a hook that calls back in finds nothing borrowed;
`run_json` refuses what the binary refuses; arguments follow one rule everywhere."""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import multiprocessing
import os
import pickle
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

import extract_between as eb
import extract_between.polars  # noqa: F401
from extract_between import _native


def big_column(mib: int, row: str = "[x] filler text [y] and more text ") -> pa.Array:
    """A string column of about `mib` MiB (rows of ~1 KiB), large enough for threads."""
    text = (row * (1024 // len(row) + 1))[:1024]
    return pa.array([text] * (mib * 1024))


def test_a_thread_that_panics_fails_the_call_instead_of_dropping_rows():
    column = big_column(4)
    with pytest.raises(BaseException, match="a thread scanning the column panicked: the test's panic at row 3000") as e:
        _native._extract_all_panicking_at(column, 3000)
    assert type(e.value).__name__ == "PanicException"
    # Without the panic the same call answers a row per row.
    assert len(pa.array(eb.extract_all(column, "[", "]"))) == len(column)


class ReadInto:
    """A binary object with `readinto` alone, answering what `answer` makes of its size."""

    def __init__(self, answer):
        self.answer = answer

    def readinto(self, buffer):
        buffer[:3] = b"[a]"
        return self.answer(len(buffer))


@pytest.mark.parametrize("answer", [lambda n: n + 10, lambda n: -1])
def test_readinto_answering_outside_its_buffer_is_refused_by_name(answer):
    with pytest.raises(ValueError, match=r"source.readinto\(\) returned -?\d+, but it was given a buffer of \d+ bytes"):
        list(eb.finditer(ReadInto(answer), "[", "]"))


def test_struct_level_nulls_are_null():
    values = pa.array(["[x]", "[y]", "[z]"])
    column = pa.StructArray.from_arrays([values], names=["t"], mask=pa.array([False, True, False]))
    assert pa.array(eb.extract_first(column, "[", "]")).to_pylist() == ["x", None, "z"]
    assert pa.array(eb.extract_all(column, "[", "]")).to_pylist() == [["x"], None, ["z"]]


def test_a_scanner_that_has_ended_refuses_more_input():
    s = eb.Scanner("[", "]")
    assert [m.text for m in s.feed(b"[a]")] == ["a"]
    assert s.finish() == []
    with pytest.raises(ValueError, match=r"Scanner.feed\(\) was called after finish\(\) ended its input"):
        s.feed(b"[b]")
    with pytest.raises(ValueError, match=r"Scanner.finish\(\) was called after finish\(\)"):
        s.finish()


@pytest.mark.parametrize("engine", ["eager", "lazy", "streaming"])
def test_polars_users_see_the_cards_error_with_row_and_offset(engine):
    df = pl.DataFrame({"t": ["[a]", "ok", "x [b"]})
    expr = pl.col("t").extract_between.all("[", "]")
    # A plugin's error is polars' ComputeError; its message carries the card's.
    with pytest.raises(pl.exceptions.ComputeError) as e:
        if engine == "eager":
            df.select(expr)
        else:
            df.lazy().select(expr).collect(engine="streaming" if engine == "streaming" else "in-memory")
    message = str(e.value)
    assert "UnclosedStartMarker: " in message
    assert "unclosed start marker at UTF-16 offset 2 (byte offset 2)" in message
    assert 'the row begins "x [b"' in message
    if engine == "eager":
        # The whole frame is the one batch; the streaming engine may hand rows over one by
        # one, and a batch of one row names no row (as a DuckDB vector of one).
        assert "UnclosedStartMarker: row 2: " in message and "rows that polars handed to extract_between_all" in message


def test_polars_expressions_check_markers_and_options_when_built():
    with pytest.raises(eb.InvalidInput, match="start"):
        pl.col("t").extract_between.all("", "]")
    with pytest.raises(ValueError, match="on_unclosed"):
        pl.col("t").extract_between.first("[", "]", on_unclosed="skip")
    with pytest.raises(eb.InvalidInput, match="max_matches"):
        pl.col("t").extract_between.all("[", "]", max_matches=0)


def test_every_exception_class_builds_from_its_message_alone():
    for cls in (eb.ExtractError, eb.UnclosedStartMarker, eb.InvalidInput, eb.MatchTooLarge):
        assert str(cls("what happened")) == "what happened"


def raise_scanner_error(kind: str):
    if kind == "unclosed":
        s = eb.Scanner("[", "]")
        s.feed(b"[a] [b")
        s.finish()
    elif kind == "utf8":
        eb.Scanner("[", "]").feed(b"[a] \xff")
    elif kind == "invalid":
        eb.extract("x", "", "]")
    elif kind == "too_large":
        list(eb.finditer("[a] [" + "x" * 50 + "]", "[", "]", max_match_bytes=10))
    elif kind == "column":
        eb.extract_all(pa.array(["[a]", "[b"]), "[", "]")


@pytest.mark.parametrize("kind", ["unclosed", "utf8", "invalid", "too_large", "column"])
def test_every_error_crosses_a_process_pool_whole(kind):
    with pytest.raises(eb.ExtractError) as here:
        raise_scanner_error(kind)
    context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        with pytest.raises(type(here.value)) as there:
            pool.submit(raise_scanner_error, kind).result()
    assert str(there.value) == str(here.value)
    assert there.value.__dict__ == here.value.__dict__


def test_matches_and_extractions_copy_and_pickle():
    m = next(eb.finditer("😀[é]", "[", "]"))
    out = eb.extract("[a][b]", "[", "]", 1)
    for value in (m, out):
        for again in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
            assert again == value and type(again) is type(value)


def test_invalid_utf8_in_a_column_names_its_row_and_offset():
    offsets = pa.array([0, 3, 8], pa.int32()).buffers()[1]
    column = pa.Array.from_buffers(pa.string(), 2, [None, offsets, pa.py_buffer(b"[a][b]\xff]")])
    with pytest.raises(eb.ExtractError, match=r'^row 1: invalid UTF-8 at byte offset 3; the row begins "\[b\]"$') as e:
        eb.extract_all(column, "[", "]")
    assert (e.value.row, e.value.byte_offset) == (1, 3)


def test_polars_null_columns_answer_all_null():
    for series in (pl.Series("t", [None, None]), pl.DataFrame({"t": []})["t"]):
        assert series.dtype == pl.Null
        assert pa.array(eb.extract_all(series, "[", "]")).to_pylist() == [None] * len(series)
        assert pa.array(eb.extract_first(series, "[", "]")).to_pylist() == [None] * len(series)
    out = pl.DataFrame({"t": [None, None]}).select(pl.col("t").extract_between.all("[", "]"))
    assert out["t"].to_list() == [None, None] and out["t"].dtype == pl.List(pl.String)


def rss_kib() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads /proc/self/statm")
def test_an_open_match_is_bounded_and_its_memory_freed_on_error():
    chunk = b"x" * (1 << 20)

    def source(mib):
        yield b"[ok] ["
        for _ in range(mib):
            yield chunk

    before = rss_kib()
    found = []
    with pytest.raises(eb.MatchTooLarge) as e:
        for m in eb.finditer(source(64), "[", "]"):
            found.append(m.text)
    assert found == ["ok"]
    assert (e.value.byte_offset, e.value.offset, e.value.limit) == (6, 6, eb.DEFAULT_MAX_MATCH_BYTES)
    assert rss_kib() - before < 40 * 1024
    # Unlimited, a Scanner holds the match, and gives the memory back when it fails.
    s = eb.Scanner("[", "]", max_match_bytes=None)
    for piece in source(128):
        s.feed(piece)
    held = rss_kib()
    assert held - before > 100 * 1024
    with pytest.raises(eb.UnclosedStartMarker):
        s.finish()
    assert rss_kib() < held - 100 * 1024


def test_afinditer_and_scanner_take_max_match_bytes():
    async def chunks():
        yield b"[abc] [abcdef]"

    async def run():
        return [m.text async for m in eb.afinditer(chunks(), "[", "]", max_match_bytes=5)]

    with pytest.raises(eb.MatchTooLarge):
        asyncio.run(run())
    with pytest.raises(eb.MatchTooLarge) as e:
        eb.Scanner("[", "]", max_match_bytes=3).feed(b"[ab] [abcd]")
    assert [m.text for m in e.value.matches] == ["ab"]
    # The library's sentence, with the option as Python spells it (JavaScript: maxMatchBytes).
    assert str(e.value) == "the match starting at UTF-16 offset 6 (byte offset 6) is longer than max_match_bytes (3 bytes)"
    assert [m.text for m in eb.finditer(b"[abcd]", "[", "]", max_match_bytes=4)] == ["abcd"]


def lasting(make, at_least: float):
    """A call that lasts at least `at_least` seconds here (a debug build is slower than a
    release one): `make(mib)` gives the call over about `mib` MiB, grown until it lasts,
    within a quarter of the free memory; past that the test is skipped, saying why."""
    mib = 16
    limit = min(4096, available_gib() * 1024 / 4)
    while True:
        call = make(mib)
        started = time.perf_counter()
        call()
        took = time.perf_counter() - started
        if took >= at_least:
            return call, took
        if mib * 2 > limit:
            pytest.skip(f"a call over {mib} MiB takes {took:.2f} s here: too quick to measure")
        mib *= 2


def test_a_long_column_call_leaves_the_gil_to_other_threads():
    call, _ = lasting(lambda mib: (lambda c=big_column(mib): eb.extract_all(c, "[", "]")), 2.0)
    gaps = []
    done = threading.Event()

    def ticker():
        last = time.perf_counter()
        while not done.is_set():
            now = time.perf_counter()
            gaps.append(now - last)
            last = now
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        started = time.perf_counter()
        # Kept until the ticker stops: freeing a large answer is not the call's work.
        answer = call()
        took = time.perf_counter() - started
    finally:
        done.set()
        t.join()
    del answer
    # A call that held the GIL would stall the ticker for the whole call; one that leaves it
    # lets the ticker run many times. The bound is relative to the call's own length, so a
    # busy machine (slower call, longer scheduling gaps alike) does not decide the outcome;
    # the latency itself is python/benches/latency.py's figure.
    assert len(gaps) >= 20, f"the ticker ran {len(gaps)} times during a {took:.2f} s call"
    assert max(gaps) < took / 4, f"a Python thread waited {max(gaps):.3f} s for the GIL during a {took:.2f} s call"


def interrupt_after(delay: float, sent: list):
    main = threading.main_thread().ident

    def fire():
        sent.append(time.perf_counter())
        signal.pthread_kill(main, signal.SIGINT)

    timer = threading.Timer(delay, fire)
    timer.start()
    return timer


def column_call(mib: int):
    column = big_column(mib)
    return lambda: eb.extract_all(column, "[", "]")


def feed_call(mib: int):
    # A match a KiB: the time goes to the scan, not to making Python objects.
    data = (b"[x]" + b" " * 1021) * (mib << 10)
    return lambda: eb.Scanner("[", "]").feed(data)


# How long each call is made to last: a column call grows to 1.5 s within the memory the
# test may take; a feed is quicker per byte and reaches 0.6 s.
@pytest.mark.parametrize("make, at_least", [(column_call, 1.5), (feed_call, 0.6)], ids=["extract_all", "feed"])
def test_ctrl_c_stops_a_long_call_long_before_it_would_end(make, at_least):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    run, whole = lasting(make, at_least)
    sent: list = []
    started = time.perf_counter()
    timer = interrupt_after(whole / 4, sent)
    try:
        with pytest.raises(KeyboardInterrupt):
            run()
        stopped = time.perf_counter()
    finally:
        timer.join()
    # A call that ignored the signal would run its whole length and raise after it. Measured
    # against that length on this machine, under whatever else runs beside it, not against a
    # wall-clock bound; the interrupt's latency is python/benches/latency.py's figure.
    took = stopped - started
    assert took < whole * 0.65, (
        f"the call ran {took:.3f} s of its {whole:.3f} s; the signal came at {sent[0] - started:.3f} s"
    )


def test_a_profile_hook_that_calls_extract_finds_nothing_borrowed():
    inner = []

    def hook(frame, event, arg):
        if event == "call" and frame.f_code.co_name == "__init__" and "_errors" in frame.f_code.co_filename:
            sys.setprofile(None)
            inner.append(eb.extract("[in]", "[", "]").matches)
            sys.setprofile(hook)

    for bad in (("[a", "[", "]"), ("x", "", "]")):
        inner.clear()
        sys.setprofile(hook)
        try:
            with pytest.raises(eb.ExtractError):
                eb.extract(*bad)
        finally:
            sys.setprofile(None)
        assert inner and inner[0] == ["in"]


@pytest.mark.parametrize("size", [4 * 1024 * 1024 + 1, 100_000_000])
def test_run_json_refuses_a_body_past_4_mib_as_the_binary_does(size):
    body = b'{"text":"' + b"a" * (size - 32) + b'","start":"[","end":"]"}'
    body = body[:size] if len(body) > size else body + b" " * (size - len(body))
    assert len(body) == size
    answer = eb.run_json(body)
    assert '"code":"payload_too_large"' in answer
    binary = os.environ.get("EXTRACT_BETWEEN_BIN")
    if binary:
        out = subprocess.run([binary, "tool"], input=body, capture_output=True, check=False)
        assert out.stdout.decode().rstrip("\n") == answer


def test_arguments_follow_one_rule():
    # None is not max_matches' default: the card refuses null.
    with pytest.raises(TypeError, match="max_matches must be an int, not NoneType"):
        eb.extract("[a]", "[", "]", None)
    # Any integer with __index__ is an integer.
    assert eb.extract("[a][b]", "[", "]", np.int64(1)).matches == ["a"]
    assert pa.array(eb.extract_all(pa.array(["[a][b]"]), "[", "]", max_matches=np.int32(1))).to_pylist() == [["a"]]
    assert [m.text for m in eb.finditer("[ab]", "[", "]", max_match_bytes=np.uint8(2))] == ["ab"]
    with pytest.raises(TypeError, match="max_matches"):
        eb.extract("[a]", "[", "]", True)
    # A column of no chunks still has a type.
    with pytest.raises(TypeError, match="column must hold strings"):
        eb.extract_all(pa.chunked_array([], type=pa.int64()), "[", "]")
    # Strided memory reads the same through finditer and Scanner.feed.
    strided = memoryview(bytearray(b"[[aa]]"))[::2]
    assert [m.text for m in eb.finditer(strided, "[", "]")] == ["a"]
    assert [m.text for m in eb.Scanner("[", "]").feed(strided)] == ["a"]
    # on_unclosed named in its messages; None is the default ('raise'), as SQL's NULL is in
    # the DuckDB and Spark functions.
    with pytest.raises(TypeError, match="on_unclosed must be"):
        eb.extract_all(pa.array(["x"]), "[", "]", on_unclosed=1)
    with pytest.raises(eb.UnclosedStartMarker):
        eb.extract_all(pa.array(["[x"]), "[", "]", on_unclosed=None)
    # A bad chunk's message reads as a sentence.
    with pytest.raises(TypeError, match=r"^chunk 1 of source must be bytes-like or str, not int$"):
        list(eb.finditer([b"[a]", 5], "[", "]"))


class NonBlocking:
    def read(self, n=-1):
        return None


class AsyncNonBlocking:
    async def read(self, n=-1):
        return None


def test_finditer_and_afinditer_agree_on_a_read_of_none_and_on_their_checks():
    with pytest.raises(TypeError) as sync:
        list(eb.finditer(NonBlocking(), "[", "]"))

    async def run():
        return [m async for m in eb.afinditer(AsyncNonBlocking(), "[", "]")]

    with pytest.raises(TypeError) as asynchronous:
        asyncio.run(run())
    assert str(sync.value) == str(asynchronous.value)
    # Markers are checked when afinditer is called, before any iteration.
    with pytest.raises(eb.InvalidInput, match="start"):
        eb.afinditer(AsyncNonBlocking(), "", "]")


def available_gib() -> float:
    try:
        with open("/proc/meminfo") as f:
            fields = dict(line.split(":", 1) for line in f)
        return int(fields["MemAvailable"].split()[0]) / (1 << 20)
    except (OSError, KeyError, ValueError):
        return 0.0


@pytest.mark.skipif(available_gib() < 12, reason="needs 12 GiB of free memory for 2.4 GiB of matches")
def test_matches_past_2_gib_answer_large_types():
    row = "[" + "x" * (800 << 20) + "]"
    column = pa.chunked_array([[row], [row], [row]])
    out = pa.array(eb.extract_all(column, "[", "]"))
    assert out.type == pa.list_(pa.field("item", pa.large_string(), nullable=False))
    assert out.value_lengths().to_pylist() == [1, 1, 1]
    assert out.values[2].as_py() == row[1:-1]
    del out
    first = pa.array(eb.extract_first(column, "[", "]"))
    assert first.type == pa.large_string() and first[1].as_py() == row[1:-1]


def test_a_pandas_object_column_names_the_value_that_is_no_string():
    import pandas as pd

    with pytest.raises(TypeError, match=r"column must hold strings: row 1 holds a value of type int \(5\)"):
        eb.extract_all(pd.Series(["[a]", 5, None], dtype=object), "[", "]")
    with pytest.raises(TypeError, match="not list"):
        eb.extract_first(["[a]"], "[", "]")  # type: ignore[arg-type]
