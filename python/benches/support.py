"""What both Python benches share: the generated documents, the median of rounds, and the
table each prints (every peer's time over extract_between's best in the same table)."""

from __future__ import annotations

import os
import random
import statistics
import sys
import time

ROUNDS = int(os.environ.get("ROUNDS", "5"))
WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor".split()


def filler(rng: random.Random, n: int) -> str:
    out, size = [], 0
    while size < n:
        w = rng.choice(WORDS)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)[:n]


def document(rng: random.Random, spans: int, start: str = "[", end: str = "]", shrink: int = 20, size: int = 2000) -> str:
    """About `size` characters of words with `spans` spans between `start` and `end`; the
    text after each span is `shrink` characters shorter than the gap, for the markers."""
    gap = size // (spans + 1)
    parts = [filler(rng, gap)]
    for _ in range(spans):
        parts.append(start + filler(rng, rng.randint(8, 30)) + end)
        parts.append(filler(rng, gap - shrink))
    return "".join(parts)


def median_seconds(fn) -> float:
    times = []
    for _ in range(ROUNDS):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def report(title: str, nbytes: int, peers: dict) -> None:
    times = {name: median_seconds(fn) for name, fn in peers.items()}
    ours = min(t for n, t in times.items() if n.startswith("extract_between"))
    print(f"\n{title} ({nbytes / 1e6:.0f} MB), median of {ROUNDS} rounds")
    print("| | seconds | GB/s | time / extract_between's best |")
    print("|---|---|---|---|")
    for name, t in times.items():
        print(f"| {name} | {t:.3f} | {nbytes / t / 1e9:.2f} | {t / ours:.2f}x |")
    sys.stdout.flush()
