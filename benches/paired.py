#!/usr/bin/env python3
"""Paired whole-process comparison of two builds of the CLI, for changes that must not slow
it down: on the four corpora (dense, sparse, Unicode, no marker; 64 MiB each, as
benches/cli.sh makes them), plain and with --json-lines, each pair of runs back to back,
alternating which binary goes first. Prints the median of the per-pair time ratios new/old
and its spread.

Usage: python3 benches/paired.py OLD_BINARY NEW_BINARY   (PAIRS=21 SIZE_MIB=64 to change)
Build the old binary from the commit before the change (git worktree add ../old HEAD~N).
"""

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

PAIRS = int(os.environ.get("PAIRS", "21"))
SIZE = int(os.environ.get("SIZE_MIB", "64")) << 20
WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor".split()
CJK = ["東京", "日本語", "文字列", "抽出", "検索", "テキスト", "データ", "処理", "、", "。"]


def sentence(rnd):
    return " ".join(rnd.choice(WORDS) for _ in range(10))


def corpora(work):
    """Writes the four corpora; returns (name, path, start, end) for each."""
    rnd = random.Random(7)
    made = []

    def write(name, lines, start, end):
        path = os.path.join(work, name + ".txt")
        out, n = [], 0
        for line in lines:
            out.append(line)
            n += len(line.encode())
            if n >= SIZE:
                break
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(out))
        made.append((name, path, start, end))

    def forever(f):
        while True:
            yield f()

    dense = lambda: sentence(rnd)[:60] + " [" + rnd.choice(WORDS) + rnd.choice(WORDS) + "]\n"
    write("dense", forever(dense), "[", "]")
    # A <title> after every ~64 KiB of plain lines.
    count = [0]

    def sparse():
        count[0] += 1
        if count[0] % 1000 == 0:
            return "<title>" + rnd.choice(WORDS) + "</title>\n"
        return sentence(rnd) + "\n"

    write("sparse", forever(sparse), "<title>", "</title>")
    unicode = lambda: (
        "".join(rnd.choice(CJK) for _ in range(20))
        + "「" + rnd.choice(CJK) + rnd.choice(CJK) + "」\n"
    )
    write("unicode", forever(unicode), "「", "」")
    write("none", forever(lambda: sentence(rnd) + "\n"), "[", "]")
    return made


def timed(cmd, out):
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=out, check=False)
    return time.perf_counter() - t0


def main():
    old, new = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    print(f"{'corpus':<9} {'mode':<12} {'old ms':>8} {'new ms':>8} {'new/old median':>15} {'min':>6} {'max':>6}")
    for name, path, start, end in corpora(work):
        for mode in ([], ["--json-lines"]):
            args = ["-s", start, "-e", end, *mode, path]
            ratios, olds, news = [], [], []
            with open(os.path.join(work, "out"), "wb") as out:
                for k in range(PAIRS + 1):
                    order = [(old, olds), (new, news)]
                    if k % 2:
                        order.reverse()
                    times = {}
                    for binary, _ in order:
                        out.seek(0)
                        out.truncate()
                        times[binary] = timed([binary, *args], out)
                    if k == 0:
                        continue  # warm-up pair
                    olds.append(times[old])
                    news.append(times[new])
                    ratios.append(times[new] / times[old])
            print(
                f"{name:<9} {' '.join(mode) or 'plain':<12} {statistics.median(olds) * 1e3:8.1f} "
                f"{statistics.median(news) * 1e3:8.1f} {statistics.median(ratios):15.3f} "
                f"{min(ratios):6.2f} {max(ratios):6.2f}",
                flush=True,
            )
    for f in os.listdir(work):
        os.remove(os.path.join(work, f))
    os.rmdir(work)


if __name__ == "__main__":
    main()
