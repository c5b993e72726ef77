"""`finditer` and `afinditer` over every kind of source, errors after the matches before
them, memory flat over a 1 GiB file, threads."""

import asyncio
import gzip
import io
import os
import subprocess
import sys
import textwrap
import threading

import pytest

import extract_between as eb

TEXT = "pre「一」mid「二」😀[x]post"
WANT = ["一", "二"]


def texts(source, start="「", end="」"):
    return [m.text for m in eb.finditer(source, start, end)]


class ReadIntoOnly:
    """A binary object with `readinto` and no `read`."""

    def __init__(self, data):
        self.inner = io.BytesIO(data)

    def readinto(self, buffer):
        return self.inner.readinto(memoryview(buffer)[:3])


def test_every_kind_of_source(tmp_path):
    data = TEXT.encode()
    path = tmp_path / "in.txt"
    path.write_bytes(data)
    gz = tmp_path / "in.txt.gz"
    with gzip.open(gz, "wb") as f:
        f.write(data)
    with open(path, "rb") as f, gzip.open(gz) as g, open(path, "rb", buffering=0) as raw:
        sources = {
            "str": TEXT,
            "bytes": data,
            "bytearray": bytearray(data),
            "memoryview": memoryview(data),
            "file": f,
            "gzip": g,
            "raw file": raw,
            "readinto only": ReadIntoOnly(data),
            "list of chunks": [data[:5], b"", data[5:9], data[9:]],
            "generator of one-byte chunks": (data[i : i + 1] for i in range(len(data))),
            "memoryview chunks": [memoryview(data)[:6], bytearray(data[6:])],
        }
        for name, source in sources.items():
            assert texts(source) == WANT, name


def test_positions_count_the_whole_source():
    data = ("é" * 100_000 + "[x]").encode()
    m, = eb.finditer(iter([data[:77], data[77:]]), "[", "]")
    assert (m.byte_start, m.utf16_start, m.utf16_end) == (200_001, 100_001, 100_002)


def test_a_str_source_longer_than_a_window():
    text = ("😀" * 300_000) + "[a]" + ("é" * 300_000) + "[b]"
    ms = list(eb.finditer(text, "[", "]"))
    assert [m.text for m in ms] == ["a", "b"]
    assert ms[1].utf16_start == 600_000 + 3 + 300_000 + 1
    assert text.encode("utf-16-le")[2 * ms[1].utf16_start : 2 * ms[1].utf16_end].decode("utf-16-le") == "b"


def test_an_ascii_str_read_in_place_matches_its_bytes_across_windows():
    # An ASCII str is scanned where it lies, 1 MiB at a time: matches and markers that
    # straddle a window's edge, positions, and an unclosed marker at the end agree with the
    # same text given as bytes and as a non-ASCII str.
    edge = 1 << 20
    text = "x" * (edge - 2) + "<<a>>" + "y" * (edge - 1) + "<<" + "b" * (edge + 5) + ">>" + "<<c"
    with pytest.raises(eb.UnclosedStartMarker) as from_bytes:
        want = []
        for m in eb.finditer(text.encode(), "<<", ">>", max_match_bytes=None):
            want.append(m)
    assert [m.text for m in want] == ["a", "b" * (edge + 5)]
    with pytest.raises(eb.UnclosedStartMarker) as from_str:
        got = []
        for m in eb.finditer(text, "<<", ">>", max_match_bytes=None):
            got.append(m)
    assert got == want
    assert from_str.value.offset == from_bytes.value.offset == len(text) - 3
    shifted = "é" + text[1:]
    with pytest.raises(eb.UnclosedStartMarker):
        wide = []
        for m in eb.finditer(shifted, "<<", ">>", max_match_bytes=None):
            wide.append(m)
    assert [(m.text, m.utf16_start, m.byte_start - 1) for m in wide] == [(m.text, m.utf16_start, m.byte_start) for m in want]


def test_unclosed_start_marker_comes_after_every_match_before_it():
    it = eb.finditer(iter([b"[a] [b", b"] [c"]), "[", "]")
    assert next(it).text == "a"
    assert next(it).text == "b"
    with pytest.raises(eb.UnclosedStartMarker) as e:
        next(it)
    assert (e.value.offset, e.value.byte_offset) == (8, 8)
    assert list(it) == []


def test_invalid_utf8_names_the_byte_offset_after_the_matches_before_it():
    it = eb.finditer(io.BytesIO(b"[a] \xe2\x82 [b]"), "[", "]")
    assert next(it).text == "a"
    with pytest.raises(eb.ExtractError) as e:
        next(it)
    assert e.value.byte_offset == 4 and "byte offset 4" in str(e.value)


def test_a_lone_surrogate_in_a_str_source_is_invalid_input():
    with pytest.raises(eb.InvalidInput) as e:
        list(eb.finditer("[a] \udfff", "[", "]"))
    assert e.value.field == "source" and "index 4" in str(e.value)


def test_a_text_mode_file_is_a_type_error(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(TEXT, encoding="utf-8")
    with open(path, encoding="utf-8") as f, pytest.raises(TypeError, match="binary mode"):
        texts(f)


def test_io_errors_reach_the_caller():
    class Broken(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, b):
            raise OSError("disk on fire")

    with pytest.raises(OSError, match="disk on fire"):
        texts(Broken())


def test_afinditer_over_an_async_iterable_and_a_stream_reader():
    data = TEXT.encode()

    async def chunks():
        for i in range(0, len(data), 4):
            yield data[i : i + 4]

    async def main():
        got = [m.text async for m in eb.afinditer(chunks(), "「", "」")]
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        reader.feed_eof()
        got2 = [m.text async for m in eb.afinditer(reader, "「", "」")]
        with pytest.raises(eb.UnclosedStartMarker):
            reader = asyncio.StreamReader()
            reader.feed_data(b"[a] [b")
            reader.feed_eof()
            [m async for m in eb.afinditer(reader, "[", "]")]
        return got, got2

    assert asyncio.run(main()) == (WANT, WANT)


def test_threads_calling_concurrently_agree():
    doc = "".join(f"<t>{i}</t>{'x' * 50}" for i in range(2000)) * 2
    want = [str(i) for i in range(2000)] * 2
    errors = []

    def work():
        try:
            for _ in range(20):
                assert texts(doc.encode(), "<t>", "</t>") == want
                assert eb.extract(doc[:200_000], "<t>", "</t>", 1000).matches == want[:1000]
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_a_large_scan_releases_the_gil():
    """While one call scans 64 MiB, another thread runs Python code. With a switch interval
    of a second, the scanning thread gives up the GIL only if the scan releases it."""
    data = (b"x" * 1023 + b"[") * (1 << 16) + b"]"
    scanning = threading.Event()
    done = threading.Event()
    ticks = [0]

    def ticker():
        while not done.is_set():
            if scanning.is_set():
                ticks[0] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    t = threading.Thread(target=ticker)
    t.start()
    try:
        scanner = eb.Scanner("[", "]", max_match_bytes=None)
        scanning.set()
        ms = scanner.feed(data)
        scanning.clear()
        ms += scanner.finish()
    finally:
        done.set()
        t.join()
        sys.setswitchinterval(old)
    assert [len(m.text) for m in ms] == [len(data) - 1025]
    assert ticks[0] > 1000


GIB = 1 << 30


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads VmHWM from /proc")
def test_a_1_gib_file_streams_in_under_64_mib(tmp_path):
    path = tmp_path / "big.txt"
    block = (b"a" * 4000 + b"<t>title</t>" + "「é」".encode() + b"\n")
    reps = GIB // len(block) + 1
    with open(path, "wb") as f:
        chunk = block * 256
        for _ in range(reps // 256 + 1):
            f.write(chunk)
    size = path.stat().st_size
    assert size >= GIB
    script = textwrap.dedent(
        f"""
        import extract_between as eb
        n = 0
        last = None
        with open({str(path)!r}, "rb") as f:
            for m in eb.finditer(f, "<t>", "</t>"):
                n += 1
                last = m
        # VmHWM, not ru_maxrss: the latter keeps the forking parent's peak across exec.
        with open("/proc/self/status") as status:
            hwm = next(int(l.split()[1]) for l in status if l.startswith("VmHWM:"))
        print(n, last.byte_end, hwm)
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    n, last_end, peak_kib = map(int, out.stdout.split())
    assert n == (reps // 256 + 1) * 256
    assert last_end == size - len(block) + 4003 + 5
    assert peak_kib < 64 * 1024, f"peak RSS {peak_kib} KiB"
    os.remove(path)
