"""`findall`: equal to the UTF-16 reference over every source kind and chunking, the
matches before an error kept on the exception, invalid UTF-8 in bytes reported where it is."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import extract_between as eb
import reference
from test_properties import cases, chunked, utf8_offset

KINDS = ["str", "bytes", "bytearray", "memoryview", "iterable", "file"]


def source_of(kind: str, text: str, cuts):
    data = text.encode()
    return {
        "str": lambda: text,
        "bytes": lambda: data,
        "bytearray": lambda: bytearray(data),
        "memoryview": lambda: memoryview(data),
        "iterable": lambda: iter(chunked(data, cuts)),
        "file": lambda: io.BufferedReader(io.BytesIO(data), buffer_size=1 + (cuts[0] % 7 if cuts else 0)),
    }[kind]()


@settings(max_examples=300, deadline=None)
@given(cases(), st.lists(st.integers(0, 10_000), max_size=8), st.sampled_from(KINDS))
def test_findall_over_any_source_equals_reference(case, cuts, kind):
    text, start, end = case
    try:
        found, _ = reference.extract(text, start, end)
    except reference.Unclosed as u:
        with pytest.raises(eb.UnclosedStartMarker) as raised:
            eb.findall(source_of(kind, text, cuts), start, end)
        assert raised.value.offset == u.offset
        assert raised.value.byte_offset == utf8_offset(text, u.offset)
        assert raised.value.matches == [t for t, _, _ in u.matches]
        return
    assert eb.findall(source_of(kind, text, cuts), start, end) == [t for t, _, _ in found]


def test_findall_has_no_cap_and_no_text_limit():
    text = "[x]" * 300_000  # 900 KB, past the card's 256000 bytes and its 1000 matches
    assert eb.findall(text, "[", "]") == ["x"] * 300_000
    assert eb.findall(text.encode(), "[", "]") == ["x"] * 300_000


@pytest.mark.parametrize("source", [b"[a][b] \xff [c]", [b"[a][b]", b" \xff [c]"], bytearray(b"[a][b] \xff [c]")])
def test_invalid_utf8_names_its_byte_offset_and_keeps_the_matches_before(source):
    with pytest.raises(eb.ExtractError) as raised:
        eb.findall(source, "[", "]")
    assert raised.value.byte_offset == 7
    assert raised.value.matches == ["a", "b"]
    assert "invalid UTF-8 at byte offset 7" in str(raised.value)


def test_arguments_are_checked_as_everywhere():
    with pytest.raises(eb.InvalidInput, match="start"):
        eb.findall("x", "", "]")
    with pytest.raises(TypeError):
        eb.findall(3, "[", "]")  # type: ignore[arg-type]
    with pytest.raises(eb.InvalidInput, match="lone surrogate"):
        eb.findall("[\ud800]", "[", "]")


def test_calls_in_a_row_with_other_markers_and_caps_answer_for_their_own():
    # extract and findall keep the finders of a thread's last call for the same marker
    # objects: a call with other markers (equal strings built anew included), another cap,
    # or bad markers after a good call must answer for its own arguments.
    import threading

    text = "<a>1</a>[2][3]<b>4</b><a>5</a>"
    pairs = [("<a>", "</a>"), ("[", "]"), ("<b>", "</b>"), ("".join(["<", "a>"]), "".join(["</", "a>"]))]
    want = {("<a>", "</a>"): ["1", "5"], ("[", "]"): ["2", "3"], ("<b>", "</b>"): ["4"]}
    failures = []

    def calls(offset):
        try:
            for i in range(400):
                start, end = pairs[(i + offset) % len(pairs)]
                cap = 1 + (i // len(pairs)) % 2
                assert eb.findall(text, start, end) == want[(start, end)]
                got = eb.extract(text, start, end, cap)
                assert got.matches == want[(start, end)][:cap]
                assert got.truncated == (len(want[(start, end)]) > cap)
                if i % 50 == 0:
                    with pytest.raises(eb.InvalidInput):
                        eb.extract(text, "", end)
                    with pytest.raises(eb.InvalidInput):
                        eb.findall(text, start, "")
        except BaseException as e:  # reported below, from the test's own thread
            failures.append(e)

    threads = [threading.Thread(target=calls, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[0]
