"""Properties against the UTF-16 reference (tests/reference.py): `extract`, `finditer` over
random chunkings and sources, and `Scanner`, on texts with astral characters, equal markers
and markers whose prefixes overlap."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

import extract_between as eb
import reference

# Pieces that straddle every path of the scanner: ASCII, marker punctuation, two-, three-
# and four-byte characters (a surrogate pair in UTF-16), a combining sequence, and the
# zero-width joiners that share their last bytes with 「 and 」.
ALPHABET = ["a", "b", "[", "]", "<", "!", "-", ">", "é", "€", "「", "」", "😀", "e\u0301", "\U0010ffff", "\u200c", "\u200d"]

pieces = st.lists(st.sampled_from(ALPHABET), max_size=60).map("".join)


@st.composite
def cases(draw):
    text = draw(pieces)
    if draw(st.integers(0, 3)) == 0:
        # A long ASCII run now and then, so the vector paths see whole blocks.
        at = draw(st.integers(0, len(text)))
        text = text[:at] + "a" * draw(st.integers(60, 300)) + "[b]" + text[at:]

    def marker():
        if text and draw(st.booleans()):
            i = draw(st.integers(0, len(text) - 1))
            return text[i : i + draw(st.integers(1, 3))]
        return draw(st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=3).map("".join))

    start = marker()
    end = start if draw(st.integers(0, 4)) == 0 else marker()
    return text, start, end


def utf8_offset(text: str, utf16: int) -> int:
    """The UTF-8 offset of a UTF-16 offset that lies on a character boundary."""
    units = 0
    for i, ch in enumerate(text):
        if units == utf16:
            return len(text[:i].encode())
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(text.encode())


def expected_stream(text, start, end):
    """What a stream yields: (text, utf16 range, byte range) of each match, and the error."""
    try:
        found, _ = reference.extract(text, start, end)
        error = None
    except reference.Unclosed as u:
        found, error = u.matches, u.offset
    out = [(t, a, b, utf8_offset(text, a), utf8_offset(text, b)) for t, a, b in found]
    return out, error


def seen(ms):
    return [(m.text, m.utf16_start, m.utf16_end, m.byte_start, m.byte_end) for m in ms]


def chunked(data: bytes, cuts):
    points = sorted({c % (len(data) + 1) for c in cuts})
    out, last = [], 0
    for p in points + [len(data)]:
        out.append(data[last:p])
        last = p
    return out


@settings(max_examples=400, deadline=None)
@given(cases(), st.sampled_from([1, 2, 3, 5, 100]))
def test_extract_equals_reference(case, cap):
    text, start, end = case
    try:
        found, truncated = reference.extract(text, start, end, cap)
    except reference.Unclosed as u:
        try:
            eb.extract(text, start, end, cap)
        except eb.UnclosedStartMarker as e:
            assert e.offset == u.offset
            assert e.byte_offset == utf8_offset(text, u.offset)
            assert e.matches == [t for t, _, _ in u.matches][:cap]
            return
        raise AssertionError("expected UnclosedStartMarker")
    out = eb.extract(text, start, end, cap)
    assert (out.matches, out.truncated) == ([t for t, _, _ in found], truncated)


@settings(max_examples=300, deadline=None)
@given(cases(), st.lists(st.integers(0, 10_000), max_size=8), st.sampled_from(["iterable", "file", "bytes", "str", "bytearray"]))
def test_finditer_over_any_chunking_equals_reference(case, cuts, kind):
    text, start, end = case
    data = text.encode()
    source = {
        "iterable": lambda: iter(chunked(data, cuts)),
        "file": lambda: io.BufferedReader(io.BytesIO(data), buffer_size=1 + (cuts[0] % 7 if cuts else 0)),
        "bytes": lambda: data,
        "str": lambda: text,
        "bytearray": lambda: bytearray(data),
    }[kind]()
    want, error = expected_stream(text, start, end)
    got = []
    it = eb.finditer(source, start, end)
    if error is None:
        got = seen(it)
    else:
        try:
            for m in it:
                got.extend(seen([m]))
            raise AssertionError("expected UnclosedStartMarker")
        except eb.UnclosedStartMarker as e:
            assert e.offset == error
            assert e.byte_offset == utf8_offset(text, error)
    assert got == want


@settings(max_examples=300, deadline=None)
@given(cases(), st.lists(st.integers(0, 10_000), max_size=8))
def test_scanner_over_any_chunking_equals_reference(case, cuts):
    text, start, end = case
    want, error = expected_stream(text, start, end)
    scanner = eb.Scanner(start, end)
    got = []
    for piece in chunked(text.encode(), cuts):
        got.extend(seen(scanner.feed(piece)))
    try:
        got.extend(seen(scanner.finish()))
        assert error is None
    except eb.UnclosedStartMarker as e:
        assert e.offset == error
        got.extend(seen(e.matches))
    assert got == want
    assert scanner.byte_position == len(text.encode())
