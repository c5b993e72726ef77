"""Benchmark: the headline figures of bench.py the way a user's script meets them — one call
in a fresh process, the first of its kind — beside the same call warm (after two calls in the
same process). Each call runs in its own child process: the data is built, then one call is
timed (fresh), then two untimed and a third timed (warm). Median over RUNS children for each
side; the children alternate ours and `re`.

Cases: `findall` on one 63 MiB dense `str` (867,488 matches) against `re.findall`, and
`finditer` over the same `str` against `re.finditer`.

Usage: python python/benches/fresh.py   (RUNS=7 MIB=64 to change)
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

RUNS = int(os.environ.get("RUNS", "7"))
MIB = int(os.environ.get("MIB", "64"))

CASES = {
    "findall, one dense str": ("eb.findall(text, '[', ']')", "pattern.findall(text)"),
    "finditer, one dense str": (
        "[m.text for m in eb.finditer(text, '[', ']')]",
        "[m.group(1) for m in pattern.finditer(text)]",
    ),
}


def child(expression: str) -> None:
    import re
    import time

    import extract_between as eb
    from support import document

    rng = random.Random(7)
    block = document(rng, 25)
    text = (block * ((MIB << 20) // len(block) + 1))[: MIB << 20].rpartition("]")[0] + "]"
    pattern = re.compile(r"\[(.*?)\]", re.S)
    scope = {"eb": eb, "pattern": pattern, "text": text}
    call = eval(f"lambda: {expression}", scope)  # noqa: S307 - the bench's own expressions
    began = time.perf_counter()
    first = call()
    fresh = time.perf_counter() - began
    del first
    call()
    call()
    began = time.perf_counter()
    call()
    warm = time.perf_counter() - began
    print(json.dumps({"fresh": fresh, "warm": warm}))


def measure(expression: str) -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", expression], check=True, capture_output=True, text=True
    )
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    return figures["fresh"], figures["warm"]


def main() -> None:
    import extract_between as eb

    print(f"Python {sys.version.split()[0]}, extract-between {eb.__version__}, {RUNS} children a side")
    print("| call | ours fresh | `re` fresh | fresh ratio | ours warm | `re` warm | warm ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, (ours, theirs) in CASES.items():
        mine, peer = [], []
        for _ in range(RUNS):
            mine.append(measure(ours))
            peer.append(measure(theirs))
        of, ow = statistics.median(f for f, _ in mine), statistics.median(w for _, w in mine)
        pf, pw = statistics.median(f for f, _ in peer), statistics.median(w for _, w in peer)
        print(f"| {name} | {of:.3f} s | {pf:.3f} s | {pf / of:.2f}× | {ow:.3f} s | {pw:.3f} s | {pw / ow:.2f}× |")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main()
