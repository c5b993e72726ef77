"""The events form (`EventScanner`, `iter_events`, `aiter_events`): random token splits against
one-shot extraction, the shared test vectors (`testdata/events.json`, which the Rust library's
tests and the JavaScript package read too), an open match never closed, equal markers, a
1 GiB match at flat memory, an interrupt between feeds."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import textwrap
from typing import Iterable, List, Tuple, Union

import pytest

import extract_between as eb

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "..", "testdata", "events.json")

PIECES = ["<answer>", "</answer>", "<ans", "wer>", "</", "é", "😀", "中文", "a", " ", "\n", "<", ">", "xyz"]


def spelled(events: Iterable[eb.Event]) -> List[Tuple[str, int, int, int, int]]:
    """Each match's content and offsets as the events spell them (content from the open's end
    to the close's start)."""
    out, text, open_ = [], [], None
    for e in events:
        if e.kind == "open":
            text, open_ = [], e
        elif e.kind == "text":
            text.append(e.text)
        else:
            assert open_ is not None
            out.append(("".join(text), open_.byte_end, e.byte_start, open_.utf16_end, e.utf16_start))
    return out


def one_shot(text: str, start: str, end: str) -> List[Tuple[str, int, int, int, int]]:
    return [(m.text, m.byte_start, m.byte_end, m.utf16_start, m.utf16_end) for m in eb.finditer(text, start, end)]


def tokens(text: str, rng: random.Random, as_bytes: bool) -> List[Union[str, bytes]]:
    """`text` cut into pieces of 1 to 8 characters (or bytes: cutting characters in two)."""
    data: Union[str, bytes] = text.encode() if as_bytes else text
    out, at = [], 0
    while at < len(data):
        n = rng.randint(1, 8)
        out.append(data[at : at + n])
        at += n
    return out


@pytest.mark.parametrize("as_bytes", [False, True], ids=["str tokens", "byte tokens"])
def test_random_token_splits_spell_the_one_shot_matches(as_bytes):
    rng = random.Random(5)
    for _ in range(300):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40)))
        try:
            expected = one_shot(text, "<answer>", "</answer>")
        except eb.UnclosedStartMarker:
            expected = None
        split = tokens(text, rng, as_bytes)
        if expected is None:
            seen: List[eb.Event] = []
            with pytest.raises(eb.UnclosedStartMarker):
                for event in eb.iter_events(split, "<answer>", "</answer>"):
                    seen.append(event)
            assert seen and seen[-1].kind in ("open", "text")
        else:
            events = list(eb.iter_events(split, "<answer>", "</answer>"))
            assert spelled(events) == expected, (text, split)
            # Text pieces tile each match's content, offsets included.
            for e in events:
                if e.kind == "text":
                    assert e.text and e.byte_end - e.byte_start == len(e.text.encode())
                    assert e.utf16_end - e.utf16_start == len(e.text.encode("utf-16-le")) // 2


def test_the_shared_vectors_give_the_same_events():
    with open(VECTORS, encoding="utf-8") as f:
        vectors = json.load(f)
    assert len(vectors) >= 8
    for case in vectors:
        chunks = [bytes.fromhex(c) for c in case["byte_chunks"]] if "byte_chunks" in case else case["chunks"]
        got: List[dict] = []
        error = None
        try:
            for e in eb.iter_events(chunks, case["start"], case["end"]):
                got.append(
                    {"kind": e.kind, **({"text": e.text} if e.kind == "text" else {}), "bytes": [e.byte_start, e.byte_end], "utf16": [e.utf16_start, e.utf16_end]}
                )
        except eb.UnclosedStartMarker as e:
            error = {"unclosed": [e.byte_offset, e.offset]}
        assert got == case["events"], case["name"]
        assert error == case.get("error"), case["name"]


def test_an_open_match_never_closed_delivers_its_text_then_raises():
    scanner = eb.EventScanner("<think>", "</think>")
    kinds = [e.kind for e in scanner.feed("a <think>one ")] + [e.kind for e in scanner.feed("two </thi")]
    assert kinds == ["open", "text", "text"]
    with pytest.raises(eb.UnclosedStartMarker) as raised:
        scanner.finish()
    # "</thi" was held back (it might have become the end marker): it is the last text.
    assert [(e.kind, e.text) for e in raised.value.events] == [("text", "</thi")]
    assert raised.value.offset == 2
    with pytest.raises(ValueError, match="after it raised an error"):
        scanner.feed("x")


def test_equal_markers_alternate_open_and_close():
    events = list(eb.iter_events(["|a|b|", "c|"], "|", "|"))
    assert spelled(events) == [("a", 1, 2, 1, 2), ("c", 5, 6, 5, 6)]


def test_aiter_events_matches_iter_events():
    chunks = ["x <t", ">a😀", "b</", "t> <t></t>"]

    async def source():
        for c in chunks:
            yield c

    async def run():
        return [e async for e in eb.aiter_events(source(), "<t>", "</t>")]

    assert asyncio.run(run()) == list(eb.iter_events(chunks, "<t>", "</t>"))
    with pytest.raises(TypeError, match="async iterable"):
        eb.aiter_events(chunks, "<t>", "</t>")  # type: ignore[arg-type]


def test_an_interrupt_between_feeds_stops_the_iteration_with_the_events_before_it():
    def source():
        yield "<t>abc"
        raise KeyboardInterrupt

    seen = []
    with pytest.raises(KeyboardInterrupt):
        for e in eb.iter_events(source(), "<t>", "</t>"):
            seen.append((e.kind, e.text))
    assert seen == [("open", None), ("text", "abc")]


def test_a_1_gib_match_streams_through_the_events_form_in_flat_memory():
    script = textwrap.dedent(
        """
        import extract_between as eb
        piece = "é" * (1 << 15)  # 64 KiB of UTF-8
        def chunks():
            yield "<t>"
            for _ in range(1 << 14):  # 1 GiB
                yield piece
            yield "</t>"
        text_bytes = 0
        kinds = set()
        for e in eb.iter_events(chunks(), "<t>", "</t>"):
            kinds.add(e.kind)
            if e.kind == "text":
                text_bytes += e.byte_end - e.byte_start
        with open("/proc/self/status") as status:
            hwm = next(int(l.split()[1]) for l in status if l.startswith("VmHWM:"))
        print(text_bytes, sorted(kinds), hwm)
        """
    )
    if not os.path.exists("/proc/self/status"):
        pytest.skip("reads VmHWM from /proc")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    text_bytes, kinds, hwm = out.stdout.split(" ", 1)[0], out.stdout.split("[")[1].split("]")[0], int(out.stdout.split()[-1])
    assert int(text_bytes) == 1 << 30
    assert kinds == "'close', 'open', 'text'"
    assert hwm < 64 * 1024, f"peak RSS {hwm} KiB"


def test_the_model_stream_example_prints_the_answer_alone():
    example = os.path.join(HERE, "..", "examples", "model_stream.py")
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    out = subprocess.run([sys.executable, example], capture_output=True, encoding="utf-8", env=env, check=True, timeout=60)
    assert out.stdout == "answer: The capital of Australia is Canberra. 🇦🇺\n"
