"""Benchmark: how soon a long call answers Ctrl-C, and how long another Python thread waits for
the GIL during it — the latencies the hardening tests hold only relative to the call's length
(a wall-clock bound there would fail on a busy machine).

Cases: `extract_all` over a column of 1 KiB rows, and `Scanner.feed` of bytes with a match a
KiB, each grown (doubling from 16 MiB, at most MAX_MIB) until one call lasts SECONDS. For each,
over ROUNDS rounds: the call alone (its length), the call with SIGINT sent a quarter of the way
in (the time from the signal to KeyboardInterrupt), and the call beside a thread that ticks
every millisecond (its longest gap). Medians and worst cases are printed.

Usage: python python/benches/latency.py   (ROUNDS=5 SECONDS=1 MAX_MIB=4096 to change)
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
SECONDS = float(os.environ.get("SECONDS", "1"))
MAX_MIB = int(os.environ.get("MAX_MIB", "4096"))
ROW = "[x]" + " " * 1021


def column_call(mib: int):
    column = pa.array([ROW] * (mib << 10))
    return lambda: eb.extract_all(column, "[", "]")


def feed_call(mib: int):
    data = ROW.encode() * (mib << 10)
    return lambda: eb.Scanner("[", "]").feed(data)


def lasting(make):
    """The call over the least data (doubling from 16 MiB) that lasts SECONDS, or MAX_MIB's."""
    mib = 16
    while True:
        call = make(mib)
        t = time.perf_counter()
        call()
        if time.perf_counter() - t >= SECONDS or mib * 2 > MAX_MIB:
            return call, mib
        mib *= 2


def calls():
    return {"extract_all": column_call, "Scanner.feed": feed_call}


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
    print(f"{'call':<14} {'MiB':>6} {'length s':>9} {'Ctrl-C ms (median / worst)':>27} {'GIL wait ms (median / worst)':>29}")
    for name, make in calls().items():
        call, mib = lasting(make)
        lengths, interrupts, waits = [], [], []
        for _ in range(ROUNDS):
            t = time.perf_counter()
            call()
            lengths.append(time.perf_counter() - t)
            interrupts.append(interrupt_latency(call, lengths[-1]) * 1000)
            waits.append(longest_gil_wait(call) * 1000)
        print(
            f"{name:<14} {mib:>6} {statistics.median(lengths):>9.2f} "
            f"{statistics.median(interrupts):>16.1f} / {max(interrupts):>8.1f} "
            f"{statistics.median(waits):>18.1f} / {max(waits):>8.1f}"
        )


if __name__ == "__main__":
    main()
