"""Benchmark: `Tags` against what a Python user writes instead, in the same run.

- One pair through a tag set: `Tags([pair]).findall(text)` beside `findall(text, *pair)` on a
  16 MiB text with a match every ~35 bytes (the target: at most 1.1x).
- Eight pairs in one pass over a 16 MiB text where every pair matches: `Tags(8).findall`
  beside one pair's `Tags([pair]).findall` on a text with as many matches of that pair alone
  (the target: at most 1.5x), eight `findall` passes, and `re.findall` with an alternation
  and a back-reference.
- Tokens: a model-like reply (reasoning, tool calls, six other tags) cut into 1-6 character
  `str` tokens, eight pairs, `scanner(outside=True).feed(token)` per token, every event
  consumed; beside a careful pure-Python incremental parser of one pair (a buffer,
  `str.find`, a marker-length look-back). The figure is the time per token.
- Memory: a 1 GiB reply in 64 KiB `bytes` chunks through `iter_events(outside=True)`, every
  event consumed, in a process of its own: peak RSS before and after.

Usage: python python/benches/tags.py   (ROUNDS=5 TOKENS=1000000 GIB=1 to change)
"""

from __future__ import annotations

import os
import random
import re
import resource
import statistics
import subprocess
import sys
import time
from typing import Callable, List, Tuple

import extract_between as eb

ROUNDS = int(os.environ.get("ROUNDS", "5"))
TOKENS = int(os.environ.get("TOKENS", "1000000"))
GIB = float(os.environ.get("GIB", "1"))
SIZE = 16 << 20
PAIRS = [(f"<f{i}>", f"</f{i}>") for i in range(8)]


def corpus(n: int) -> str:
    parts, k, size = [], 0, 0
    while size < SIZE:
        for f in range(8):
            piece = f"<f{f % n}>value {k} of field {f}</f{f % n}> | "
            parts.append(piece)
            size += len(piece)
            k += 1
        parts.append("\n")
    return "".join(parts)


def timed(runs: List[Tuple[str, Callable[[], object]]]) -> dict:
    times = {name: [] for name, _ in runs}
    for _ in range(ROUNDS):
        for name, run in runs:
            t = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - t)
    return {name: statistics.median(v) for name, v in times.items()}


def reply(tokens: int) -> List[str]:
    """A reasoning model's replies with tool calls and other tags, cut into 1-6 char tokens."""
    turn = (
        "<think>The user asks for the weather in Paris; call the tool, then answer.</think>"
        'Let me check. <tool_call>{"name": "weather", "city": "Paris"}</tool_call>'
        "<tool_result>18°C, cloudy</tool_result>It is <b>18°C</b> and cloudy in Paris. "
        "<cite>meteo</cite> <note>units: °C</note> <code>x = 1</code> <em>ok</em>\n"
    )
    rng = random.Random(7)
    out, text, at = [], turn * (tokens * 4 // len(turn) + 2), 0
    while len(out) < tokens:
        n = rng.randint(1, 6)
        out.append(text[at : at + n])
        at += n
    return out


REPLY_PAIRS = [
    ("<think>", "</think>"),
    ("<tool_call>", "</tool_call>"),
    ("<tool_result>", "</tool_result>"),
    ("<b>", "</b>"),
    ("<cite>", "</cite>"),
    ("<note>", "</note>"),
    ("<code>", "</code>"),
    ("<em>", "</em>"),
]


class PurePython:
    """A careful incremental parser of one pair: a buffer, `str.find`, a marker-length
    look-back; it emits open / text / close / outside pieces, without offsets."""

    def __init__(self, start: str, end: str) -> None:
        self.start, self.end, self.buf, self.inside = start, end, "", False

    def feed(self, chunk: str) -> List[Tuple[str, str]]:
        buf, out, i = self.buf + chunk, [], 0
        while True:
            marker = self.end if self.inside else self.start
            j = buf.find(marker, i)
            if j < 0:
                cut = max(i, len(buf) - (len(marker) - 1))
                if cut > i:
                    out.append(("text" if self.inside else "outside", buf[i:cut]))
                i = cut
                break
            if j > i:
                out.append(("text" if self.inside else "outside", buf[i:j]))
            out.append(("close" if self.inside else "open", ""))
            i, self.inside = j + len(marker), not self.inside
        self.buf = buf[i:]
        return out


def memory() -> None:
    """The 1 GiB reply alone in this process, so that its peak RSS is the stream's."""
    tags = eb.Tags(REPLY_PAIRS)
    text = "".join(reply(10_000))
    turn = text[: text.rindex("\n") + 1].encode()
    chunk = turn * ((64 << 10) // len(turn) + 1)
    count = int(GIB * (1 << 30)) // len(chunk)
    before = peak_rss_mib()
    start = time.perf_counter()
    seen = 0
    for _ in tags.iter_events((chunk for _ in range(count)), outside=True):
        seen += 1
    secs = time.perf_counter() - start
    after = peak_rss_mib()
    print(
        f"{count * len(chunk) / (1 << 30):.2f} GiB in {len(chunk) >> 10} KiB chunks through iter_events(outside=True): "
        f"{seen} events in {secs:.1f} s; peak RSS {before:.0f} MiB before, {after:.0f} MiB after"
    )


def peak_rss_mib() -> float:
    """This process's peak RSS (`VmHWM`: unlike `ru_maxrss`, not carried over an exec)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024


def main() -> None:
    if sys.argv[1:] == ["memory"]:
        return memory()
    text1, text8 = corpus(1), corpus(8)
    one, eight = eb.Tags(PAIRS[:1]), eb.Tags(PAIRS)
    alternation = re.compile(r"<f(\d)>(.*?)</f\1>", re.S)
    assert len(one.findall(text1)) == len(eight.findall(text8)) == sum(len(eb.findall(text8, s, e)) for s, e in PAIRS)
    t = timed(
        [
            ("1 pair: findall(text, start, end)", lambda: eb.findall(text1, *PAIRS[0])),
            ("1 pair: Tags([pair]).findall", lambda: one.findall(text1)),
            ("8 pairs: Tags(8).findall, one pass", lambda: eight.findall(text8)),
            ("8 pairs: 8 findall passes", lambda: [eb.findall(text8, s, e) for s, e in PAIRS]),
            ("8 pairs: re.findall alternation", lambda: alternation.findall(text8)),
        ]
    )
    matches = len(one.findall(text1))
    print(f"16 MiB, {matches} matches, median of {ROUNDS} rounds")
    base = t["1 pair: findall(text, start, end)"]
    for name, secs in t.items():
        print(f"  {name:<40} {secs * 1e3:8.1f} ms  {secs / base:5.2f}x findall")
    print(f"  8 pairs in one pass / 1 pair's pass on as many matches: {t['8 pairs: Tags(8).findall, one pass'] / t['1 pair: Tags([pair]).findall']:.2f}x")

    tokens = reply(TOKENS)
    tags = eb.Tags(REPLY_PAIRS)

    def ours() -> int:
        feed, n = tags.scanner(outside=True).feed, 0
        for token in tokens:
            for _ in feed(token):
                n += 1
        return n

    def naive() -> int:
        feed, n = PurePython("<think>", "</think>").feed, 0
        for token in tokens:
            for _ in feed(token):
                n += 1
        return n

    t = timed([("Tags(8).scanner(outside=True).feed", ours), ("pure Python, one pair", naive)])
    print(f"\n{TOKENS} tokens of 1-6 characters, median of {ROUNDS} rounds")
    for name, secs in t.items():
        print(f"  {name:<40} {secs / TOKENS * 1e6:6.3f} µs a token")
    print()
    subprocess.run([sys.executable, __file__, "memory"], check=True)

if __name__ == "__main__":
    main()
