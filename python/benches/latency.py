"""Benchmark: how soon a long call answers Ctrl-C, and how long another Python thread waits for
the GIL during it — the latencies the hardening tests hold only relative to the call's length
(a wall-clock bound there would fail on a busy machine).

Cases: `extract_all` over a column of MIB MiB, and `Scanner.feed` of MIB MiB of bytes. For
each, over ROUNDS rounds: the call alone (its length), the call with SIGINT sent a quarter of
the way in (the time from the signal to KeyboardInterrupt), and the call beside a thread that
ticks every millisecond (its longest gap). Medians and worst cases are printed.

Usage: python python/benches/latency.py   (ROUNDS=5 MIB=256 to change)
"""

from __future__ import annotations

import os
import signal
import statistics
import threading
import time

import pyarrow as pa

import extract_between as eb

ROUNDS = int(os.environ.get("ROUNDS", "5"))
MIB = int(os.environ.get("MIB", "256"))


def calls():
    row = "[x]" + " " * 1021
    column = pa.array([row] * (MIB << 10))
    data = row.encode() * (MIB << 10)
    return {
        "extract_all": lambda: eb.extract_all(column, "[", "]"),
        "Scanner.feed": lambda: eb.Scanner("[", "]").feed(data),
    }


def interrupt_latency(call, whole: float) -> float:
    main = threading.main_thread().ident
    sent: list[float] = []

    def fire():
        sent.append(time.perf_counter())
        signal.pthread_kill(main, signal.SIGINT)

    timer = threading.Timer(whole / 4, fire)
    timer.start()
    try:
        call()
    except KeyboardInterrupt:
        stopped = time.perf_counter()
    else:
        raise SystemExit("the call ended without KeyboardInterrupt")
    finally:
        timer.join()
    return stopped - sent[0]


def longest_gil_wait(call) -> float:
    gaps: list[float] = []
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
        call()
    finally:
        done.set()
        t.join()
    return max(gaps)


def main() -> None:
    print(f"{'call':<14} {'length s':>9} {'Ctrl-C ms (median / worst)':>27} {'GIL wait ms (median / worst)':>29}")
    for name, call in calls().items():
        lengths, interrupts, waits = [], [], []
        for _ in range(ROUNDS):
            t = time.perf_counter()
            call()
            lengths.append(time.perf_counter() - t)
            interrupts.append(interrupt_latency(call, lengths[-1]) * 1000)
            waits.append(longest_gil_wait(call) * 1000)
        print(
            f"{name:<14} {statistics.median(lengths):>9.2f} "
            f"{statistics.median(interrupts):>16.1f} / {max(interrupts):>8.1f} "
            f"{statistics.median(waits):>18.1f} / {max(waits):>8.1f}"
        )


if __name__ == "__main__":
    main()
