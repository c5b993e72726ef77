"""Benchmark: extract_between against what a Python user would write instead, on the same
data in one run. Plain `time.perf_counter`, the median of ROUNDS rounds.

- Per document: 100,000 generated documents of ~2 KB, dense (~25 bracketed spans each) and
  sparse (one); `extract` and `findall` per document against `re.findall` (compiled, re.S),
  the `regex` module (when installed) and a `str.find` loop.
- A call's fixed cost: `extract` on an empty text, against `re.findall` on one.
- One 64 MiB text: `finditer` over the `str`, over the file opened "rb" (streaming), against
  `re.finditer` and `re.findall` over the `str` (for re, reading and decoding the file is not
  counted); `findall` over the `str` and over the file's bytes, against `re.findall` over the
  same (a bytes pattern on the bytes: re's answer stays bytes, ours are `str`).

Usage: python python/benches/bench.py   (ROUNDS=5 DOCS=100000 MIB=64 to change)
"""

from __future__ import annotations

import os
import random
import re
import sys
import tempfile
import timeit

import extract_between as eb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import ROUNDS, document, report  # noqa: E402

try:
    import regex
except ImportError:  # pragma: no cover - optional peer
    regex = None

DOCS = int(os.environ.get("DOCS", "100000"))
MIB = int(os.environ.get("MIB", "64"))

def find_loop(doc: str, start: str, end: str) -> list:
    out, pos = [], 0
    while True:
        s = doc.find(start, pos)
        if s < 0:
            return out
        e = doc.find(end, s + len(start))
        if e < 0:
            raise ValueError("unclosed start marker")
        out.append(doc[s + len(start) : e])
        pos = e + len(end)


def per_document(name: str, docs: list[str]) -> None:
    total = sum(len(d.encode()) for d in docs)
    pattern = re.compile(r"\[(.*?)\]", re.S)
    want = [pattern.findall(d) for d in docs]
    assert [eb.extract(d, "[", "]", 1000).matches for d in docs] == want
    assert [find_loop(d, "[", "]") for d in docs] == want
    peers = {
        "extract_between.extract": lambda: [eb.extract(d, "[", "]", 1000) for d in docs],
        "extract_between.findall": lambda: [eb.findall(d, "[", "]") for d in docs],
        "re.findall": lambda: [pattern.findall(d) for d in docs],
        "str.find loop": lambda: [find_loop(d, "[", "]") for d in docs],
    }
    if regex is not None:
        rpattern = regex.compile(r"\[(.*?)\]", regex.S)
        assert [rpattern.findall(d) for d in docs] == want
        peers["regex.findall"] = lambda: [rpattern.findall(d) for d in docs]
    report(f"{len(docs):,} documents, {name}", total, peers)


def one_text(name: str, text: str) -> None:
    data = text.encode()
    pattern = re.compile(r"\[(.*?)\]", re.S)
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(data)
        path = f.name
    try:
        want = pattern.findall(text)
        assert [m.text for m in eb.finditer(text, "[", "]")] == want

        def from_file():
            with open(path, "rb") as f:
                return [m.text for m in eb.finditer(f, "[", "]")]

        assert from_file() == want
        matches = list(eb.finditer(text, "[", "]"))
        ms = list(pattern.finditer(text))
        report(
            f"where finditer's time goes, {name}: {len(matches):,} matches",
            len(data),
            {
                "extract_between: Scanner.feed, one call, one list": lambda: eb.Scanner("[", "]").feed(data),
                "Python alone: [m.text for m in matches] over built matches": lambda: [m.text for m in matches],
                "Python alone: the same over re's match objects": lambda: [m.group(1) for m in ms],
            },
        )
        report(
            f"one {len(data) >> 20} MiB text, {name}",
            len(data),
            {
                "extract_between.finditer (str)": lambda: [m.text for m in eb.finditer(text, "[", "]")],
                "extract_between.finditer (file)": from_file,
                "re.finditer": lambda: [m.group(1) for m in pattern.finditer(text)],
                "re.findall": lambda: pattern.findall(text),
            },
        )
        assert eb.findall(text, "[", "]") == want

        def findall_file():
            with open(path, "rb") as f:
                return eb.findall(f.read(), "[", "]")

        def re_findall_file():
            with open(path, "rb") as f:
                return bytes_pattern.findall(f.read())

        def read_file():
            with open(path, "rb") as f:
                return f.read()

        bytes_pattern = re.compile(rb"\[(.*?)\]", re.S)
        assert findall_file() == want
        report(
            f"findall, one {len(data) >> 20} MiB text, {name}",
            len(data),
            {
                "extract_between.findall (str)": lambda: eb.findall(text, "[", "]"),
                "extract_between.findall (bytes read from the file)": findall_file,
                "re.findall (str)": lambda: pattern.findall(text),
                "re.findall (bytes read from the file)": re_findall_file,
                "floor: the file's bytes read, nothing else": read_file,
            },
        )
    finally:
        os.remove(path)


def per_call() -> None:
    """A call's fixed cost: `extract` on an empty text, beside `re.findall` on one (the best
    of ROUNDS `timeit` repeats of a million calls, in microseconds a call)."""
    pattern = re.compile(r"\[(.*?)\]", re.S)
    statements = [
        "eb.extract('', '[', ']')",
        "eb.extract('', '[', ']', 1000)",
        "pattern.findall('')",
    ]
    print(f"\nfixed cost of a call on an empty text, best of {ROUNDS} x 1,000,000 calls")
    print("| | µs a call |")
    print("|---|---|")
    for statement in statements:
        timer = timeit.Timer(statement, globals={"eb": eb, "pattern": pattern})
        best = min(timer.repeat(number=1_000_000, repeat=ROUNDS)) / 1_000_000
        print(f"| `{statement}` | {best * 1e6:.3f} |")
    sys.stdout.flush()


def main() -> None:
    rng = random.Random(7)
    print(f"Python {sys.version.split()[0]}, regex {'present' if regex else 'absent'}")
    per_call()
    per_document("dense (~25 spans in 2 KB)", [document(rng, 25) for _ in range(DOCS)])
    per_document("sparse (one span in 2 KB)", [document(rng, 1) for _ in range(DOCS)])
    block = document(rng, 25)
    one_text("dense", (block * ((MIB << 20) // len(block) + 1))[: MIB << 20].rpartition("]")[0] + "]")
    block = document(rng, 0) * 32 + "[" + "sparse span" + "]"
    one_text("sparse", (block * ((MIB << 20) // len(block) + 1)))


if __name__ == "__main__":
    main()
