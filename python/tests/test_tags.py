"""`Tags`: several pairs in one pass and the text outside them, held to a naive reference under
any chunking, with its refusals naming the pair and the marker."""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import extract_between as eb

PIECES = ["a", "b", "<", ">", "/", "t", "é", "😀", "「", "」"]


def reference(text: str, pairs: list[tuple[str, str]]) -> tuple[list[tuple[str, object]], object]:
    """The steps (adjacent pieces joined) and the unclosed (pair, UTF-16 offset), a character
    at a time."""
    steps: list[tuple[str, object]] = []

    def push(kind: str, value: object) -> None:
        if kind in ("outside", "text") and steps and steps[-1][0] == kind:
            last = steps[-1][1]
            if kind == "outside":
                steps[-1] = (kind, last + value)  # type: ignore[operator]
                return
            if last[0] == value[0]:  # type: ignore[index]
                steps[-1] = (kind, (last[0], last[1] + value[1]))  # type: ignore[index]
                return
        steps.append((kind, value))

    i, outside_from = 0, 0
    while i < len(text):
        found = [(len(s), tag) for tag, (s, _) in enumerate(pairs) if text.startswith(s, i)]
        if not found:
            i += 1
            continue
        _, tag = max(found)
        start, end = pairs[tag]
        if outside_from < i:
            push("outside", text[outside_from:i])
        push("open", tag)
        content = i + len(start)
        at = text.find(end, content)
        if at < 0:
            if content < len(text):
                push("text", (tag, text[content:]))
            return steps, (tag, len(text[:i].encode("utf-16-le")) // 2)
        if at > content:
            push("text", (tag, text[content:at]))
        push("close", tag)
        i = outside_from = at + len(end)
    if outside_from < len(text):
        push("outside", text[outside_from:])
    return steps, None


def joined(events: list[eb.Event]) -> list[tuple[str, object]]:
    steps: list[tuple[str, object]] = []
    for e in events:
        if e.kind == "outside":
            value: object = e.text
        elif e.kind == "text":
            value = (e.tag, e.text)
        else:
            value = e.tag
        if e.kind in ("outside", "text") and steps and steps[-1][0] == e.kind:
            last = steps[-1][1]
            if e.kind == "outside":
                steps[-1] = ("outside", last + e.text)  # type: ignore[operator]
                continue
            if last[0] == e.tag:  # type: ignore[index]
                steps[-1] = ("text", (e.tag, last[1] + e.text))  # type: ignore[index]
                continue
        steps.append((e.kind, value))
    return steps


texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
markers = st.lists(st.sampled_from(PIECES), min_size=1, max_size=3).map("".join)
tag_sets = st.lists(st.tuples(markers, markers), min_size=1, max_size=4, unique_by=lambda p: p[0])


@settings(max_examples=400, deadline=None)
@given(texts, tag_sets, st.lists(st.integers(1, 9), min_size=1, max_size=5), st.booleans())
def test_events_equal_the_reference_under_any_chunking(text, pairs, plan, as_bytes):
    want, unclosed = reference(text, pairs)
    data = text.encode() if as_bytes else text
    chunks, at, k = [], 0, 0
    while at < len(data):
        chunks.append(data[at : at + plan[k % len(plan)]])
        at += plan[k % len(plan)]
        k += 1
    if as_bytes:
        chunks = [bytes(c) for c in chunks]
    events: list[eb.Event] = []
    scanner = eb.Tags(pairs).scanner(outside=True)
    try:
        for chunk in chunks:
            events += scanner.feed(chunk)
        events += scanner.finish()
        got = None
    except eb.UnclosedStartMarker as e:
        events += e.events
        got = (e.tag, e.offset)
    assert joined(events) == want
    assert got == unclosed
    # Lossless: pieces and markers in order are the text.
    rebuilt = "".join(
        e.text if e.text is not None else (pairs[e.tag][0] if e.kind == "open" else pairs[e.tag][1]) for e in events
    )
    assert rebuilt == text
    # findall agrees.
    matches = [(v[0], v[1]) for k, v in want if k == "text"]  # type: ignore[index]
    try:
        found = eb.Tags(pairs).findall(text)
        assert unclosed is None
    except eb.UnclosedStartMarker as e:
        found = e.matches
        assert (e.tag, e.offset) == unclosed
    closed = [s for s in want if s[0] == "close"]
    assert len(found) == len(closed)
    assert all(f in matches or f[1] == "" for f in found)


def test_findall_answers_pair_and_text_and_the_longest_start_wins():
    tags = eb.Tags([("<a", ">"), ("<ab", "|")])
    assert tags.findall("<ab|<ax>") == [(1, ""), (0, "x")]
    assert tags.findall(b"<ax>") == [(0, "x")]
    assert len(tags) == 2 and tags.pairs == [("<a", ">"), ("<ab", "|")]
    assert repr(tags) == "Tags([('<a', '>'), ('<ab', '|')])"


def test_without_outside_the_scanner_answers_the_matches_alone():
    scanner = eb.Tags([("[", "]")]).scanner()
    assert [(e.kind, e.tag, e.text) for e in scanner.feed("x[a]y")] == [
        ("open", 0, None),
        ("text", 0, "a"),
        ("close", 0, None),
    ]
    assert scanner.finish() == []
    with pytest.raises(ValueError, match="after finish"):
        scanner.feed("more")


def test_outside_text_is_not_held_past_what_may_begin_a_marker():
    scanner = eb.Tags([("<think>", "</think>")]).scanner(outside=True)
    assert [e.text for e in scanner.feed("It is 4. <th")] == ["It is 4. "]
    assert [e.text for e in scanner.feed("e end")] == ["<the end"]


def test_unclosed_names_the_pair_with_the_events_before_it():
    scanner = eb.Tags([("[", "]"), ("(", ")")]).scanner(outside=True)
    events = scanner.feed("a(b")
    with pytest.raises(eb.UnclosedStartMarker) as raised:
        scanner.finish()
    assert raised.value.tag == 1 and raised.value.offset == 1 and raised.value.byte_offset == 1
    assert [(e.kind, e.text) for e in events] == [("outside", "a"), ("open", None), ("text", "b")]
    with pytest.raises(eb.UnclosedStartMarker) as raised:
        eb.Tags([("[", "]"), ("é(", ")")]).findall("[x] é(y")
    assert raised.value.matches == [(0, "x")] and raised.value.tag == 1 and raised.value.offset == 4


def test_invalid_utf8_is_named_at_its_byte_after_the_text_before_it():
    scanner = eb.Tags([("[", "]")]).scanner(outside=True)
    with pytest.raises(eb.InvalidUtf8) as raised:
        scanner.feed(b"ok [a] \xff")
    assert raised.value.byte_offset == 7
    assert [e.text for e in raised.value.events if e.kind == "outside"] == ["ok ", " "]


def test_bad_sets_name_the_pair_and_the_marker():
    with pytest.raises(eb.InvalidInput, match="pair 1's start marker '\\[' is pair 0's|pair 1's start marker \"\\[\" is pair 0's"):
        eb.Tags([("[", "]"), ("[", ")")])
    with pytest.raises(eb.InvalidInput, match="pair 0's end must be a non-empty string"):
        eb.Tags([("[", "")])
    with pytest.raises(eb.InvalidInput, match="at least one"):
        eb.Tags([])
    with pytest.raises(eb.InvalidInput, match="at most 64 pairs \\(it has 65\\)"):
        eb.Tags([(f"<{i}>", "</>") for i in range(65)])
    with pytest.raises(eb.InvalidInput, match="pairs\\[0\\]\\[1\\].*lone surrogate"):
        eb.Tags([("[", "\ud800")])
    with pytest.raises(TypeError, match="pairs\\[1\\] must be a \\(start, end\\) tuple"):
        eb.Tags([("[", "]"), "()"])
    with pytest.raises(TypeError, match="pairs must be a sequence"):
        eb.Tags("[]")
    assert eb.Tags([(b"[", b"]")]).findall("[a]") == [(0, "a")]


def test_iter_events_and_aiter_events_follow_a_streamed_reply():
    tags = eb.Tags([("<think>", "</think>"), ("<tool_call>", "</tool_call>")])
    reply = ["<think>The user ", "asks</th", "ink>It is 4.", " <tool_", 'call>{"n": 1}</tool_call>']
    answer = "".join(e.text for e in tags.iter_events(reply, outside=True) if e.kind == "outside")
    assert answer == "It is 4. "
    calls = [e.text for e in tags.iter_events(reply) if e.kind == "text" and e.tag == 1]
    assert calls == ['{"n": 1}']

    async def tokens():
        for token in reply:
            yield token

    async def collect():
        return [(e.kind, e.tag) async for e in tags.aiter_events(tokens(), outside=True)]

    kinds = asyncio.run(collect())
    assert kinds[:3] == [("open", 0), ("text", 0), ("text", 0)] and kinds[-1] == ("close", 1)
    with pytest.raises(TypeError, match="async iterable"):
        tags.aiter_events(reply)  # type: ignore[arg-type]


def test_a_set_pickles_and_a_huge_one_is_counted_not_converted():
    tags = eb.Tags([("<think>", "</think>"), ("[", "]")])
    again = pickle.loads(pickle.dumps(tags))
    assert type(again) is eb.Tags and again.pairs == tags.pairs
    assert again.findall("<think>a</think>[b]") == [(0, "a"), (1, "b")]
    # The 65th pair refuses the set: the rest are counted (here, objects no marker could be).
    with pytest.raises(eb.InvalidInput, match="at most 64 pairs \\(it has 100000\\)"):
        eb.Tags([(f"<{i}>", "</>") for i in range(64)] + [object()] * 99_936)


def test_events_of_tags_pickle_with_their_pair():
    event = eb.Tags([("[", "]")]).scanner().feed("[a")[1]
    assert pickle.loads(pickle.dumps(event)) == event
    assert event.tag == 0 and "tag=0" in repr(event)


VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata")


def as_dict(e: eb.Event) -> dict[str, object]:
    out: dict[str, object] = {"kind": e.kind, "tag": e.tag, "utf16": [e.utf16_start, e.utf16_end], "bytes": [e.byte_start, e.byte_end]}
    if e.text is not None:
        out["text"] = e.text
    return out


def test_the_shared_vectors_answer_feed_by_feed():
    with open(os.path.join(VECTORS, "tags.json"), encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    assert len(cases) >= 20
    for case in cases:
        scanner = eb.Tags([tuple(p) for p in case["pairs"]]).scanner(outside=case["outside"])
        answers = [[as_dict(e) for e in scanner.feed(chunk)] for chunk in case["chunks"]]
        try:
            answers.append([as_dict(e) for e in scanner.finish()])
            error = None
        except eb.UnclosedStartMarker as e:
            answers.append([as_dict(x) for x in e.events])
            error = {"tag": e.tag, "utf16": e.offset, "bytes": e.byte_offset}
        assert answers == case["answers"], case["name"]
        assert error == case["error"], case["name"]


def test_the_vectors_are_what_their_generator_writes():
    subprocess.run([sys.executable, os.path.join(VECTORS, "tags.py"), "--check"], check=True)
