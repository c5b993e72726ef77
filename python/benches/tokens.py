"""Benchmark: the events form on a language model's token stream, against a careful
pure-Python incremental parser in the same run; and on large chunks, against `finditer`.

- Tokens: TOKENS four-character `str` tokens of a text holding `<think>…</think>` and
  `<answer>…</answer>` spans (tags cut across tokens), the `<answer>` events wanted. Ours:
  `EventScanner.feed(token)` per token (and `iter_events` over the list); the baseline: a
  buffer, `str.find`, a marker-length look-back, emitting the same open / text / close
  events (without offsets, which ours also computes). Both consume every event. The figure is
  the time per token, median of ROUNDS.
- Large chunks: 64 MiB in 64 KiB `bytes` chunks through `iter_events` and through
  `finditer` (whole matches), the same spans: the model's text (a match every ~150 bytes)
  and a sparse text (a match every 64 KB).

Usage: python python/benches/tokens.py   (ROUNDS=5 TOKENS=1000000 to change)
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Callable, List, Tuple

import extract_between as eb

ROUNDS = int(os.environ.get("ROUNDS", "5"))
TOKENS = int(os.environ.get("TOKENS", "1000000"))


def model_text(chars: int) -> str:
    """A reasoning model's answers: a think span, then an answer span, over and over."""
    turn = (
        "<think>The user asks for the sum; 19 + 23 is 42, check: 42 - 23 = 19. é中😀 ok.</think>"
        "Here it is: <answer>The answer is 42, as computed above.</answer>\n"
    )
    return (turn * (chars // len(turn) + 1))[:chars]


class PurePython:
    """A careful incremental parser: a buffer, `str.find`, a marker-length look-back."""

    def __init__(self, start: str, end: str) -> None:
        self.start, self.end, self.buf, self.inside = start, end, "", False

    def feed(self, chunk: str) -> List[Tuple[str, str]]:
        buf, out, i = self.buf + chunk, [], 0
        while True:
            if not self.inside:
                j = buf.find(self.start, i)
                if j < 0:
                    i = max(i, len(buf) - (len(self.start) - 1))
                    break
                out.append(("open", ""))
                i, self.inside = j + len(self.start), True
            else:
                j = buf.find(self.end, i)
                if j < 0:
                    cut = max(i, len(buf) - (len(self.end) - 1))
                    if cut > i:
                        out.append(("text", buf[i:cut]))
                    i = cut
                    break
                if j > i:
                    out.append(("text", buf[i:j]))
                out.append(("close", ""))
                i, self.inside = j + len(self.end), False
        self.buf = buf[i:]
        return out


def per_token(run: Callable[[], int]) -> Tuple[float, int]:
    times, answer = [], 0
    for _ in range(ROUNDS):
        began = time.perf_counter()
        answer = run()
        times.append(time.perf_counter() - began)
    return statistics.median(times), answer


def main() -> None:
    print(f"Python {sys.version.split()[0]}, extract-between {eb.__version__}")
    text = model_text(TOKENS * 4)
    tokens = [text[i : i + 4] for i in range(0, len(text), 4)]

    def ours() -> int:
        scanner, n = eb.EventScanner("<answer>", "</answer>"), 0
        for token in tokens:
            for event in scanner.feed(token):
                if event.kind == "text":
                    n += len(event.text)
        scanner.finish()
        return n

    def ours_iter() -> int:
        return sum(len(e.text) for e in eb.iter_events(tokens, "<answer>", "</answer>") if e.kind == "text")

    def pure() -> int:
        parser, n = PurePython("<answer>", "</answer>"), 0
        for token in tokens:
            for kind, piece in parser.feed(token):
                if kind == "text":
                    n += len(piece)
        return n

    def loop_alone() -> int:
        n = 0
        for token in tokens:
            n += len(token)
        return n

    results = {
        "EventScanner.feed per token": per_token(ours),
        "iter_events over the tokens": per_token(ours_iter),
        "pure-Python incremental parser": per_token(pure),
        "the loop alone (len of each token)": per_token(loop_alone),
    }
    answers = {a for name, (_, a) in results.items() if "loop" not in name}
    assert len(answers) == 1, answers
    baseline = results["pure-Python incremental parser"][0]
    print(f"\n{len(tokens):,} four-character str tokens, the <answer> events consumed, median of {ROUNDS}")
    print("| form | µs per token | the pure-Python parser / this |")
    print("|---|---|---|")
    for name, (seconds, _) in results.items():
        print(f"| {name} | {seconds / len(tokens) * 1e6:.3f} | {baseline / seconds:.2f}× |")

    sparse_turn = ("x" * 2000 + "\n") * 32 + "<answer>42</answer>\n"
    for label, data in (
        ("the model's text, a match every ~150 bytes", model_text(64 << 20)),
        ("sparse text, a match every 64 KB", sparse_turn * ((64 << 20) // len(sparse_turn) + 1)),
    ):
        big = data.encode()[: 64 << 20]
        chunks = [big[i : i + (64 << 10)] for i in range(0, len(big), 64 << 10)]

        def events_big() -> int:
            return sum(e.byte_end - e.byte_start for e in eb.iter_events(chunks, "<answer>", "</answer>") if e.kind == "text")

        def finditer_big() -> int:
            return sum(m.byte_end - m.byte_start for m in eb.finditer(chunks, "<answer>", "</answer>"))

        big_results = {"iter_events": per_token(events_big), "finditer": per_token(finditer_big)}
        assert big_results["iter_events"][1] == big_results["finditer"][1]
        f = big_results["finditer"][0]
        print(f"\n64 MiB in 64 KiB bytes chunks, {label}, median of {ROUNDS}")
        print("| form | seconds | MB/s | time / finditer's |")
        print("|---|---|---|---|")
        for name, (seconds, _) in big_results.items():
            print(f"| {name} | {seconds:.3f} | {len(big) / seconds / 1e6:.0f} | {seconds / f:.2f}× |")


if __name__ == "__main__":
    main()
