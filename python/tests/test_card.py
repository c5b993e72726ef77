"""The card's sentences and the consequences of its loop, through `extract` (the same cases
as the Rust semantics tests)."""

import pytest

import extract_between as eb


def test_card_example():
    out = eb.extract("pre[one]mid[two]post", "[", "]")
    assert (out.matches, out.truncated) == (["one", "two"], False)


def test_end_marker_is_searched_after_the_start_marker():
    with pytest.raises(eb.UnclosedStartMarker) as e:
        eb.extract("<!-->", "<!--", "-->")
    assert (e.value.offset, e.value.byte_offset) == (0, 0)


def test_equal_markers_pair_consecutive_occurrences():
    assert eb.extract("|a||b|", "|", "|").matches == ["a", "b"]
    with pytest.raises(eb.UnclosedStartMarker) as e:
        eb.extract("|a||b||c", "|", "|")
    assert e.value.offset == 6


def test_nested_starts_are_content():
    assert eb.extract("[[a]]", "[", "]").matches == ["[a"]


def test_end_without_start_is_ignored():
    assert eb.extract("a] [b]", "[", "]").matches == ["b"]


def test_empty_content_is_a_match():
    assert eb.extract("[]x[]", "[", "]").matches == ["", ""]


def test_empty_text_yields_no_matches_and_not_truncated():
    assert tuple(eb.extract("", "[", "]")) == ([], False)


def test_max_matches_defaults_to_100():
    out = eb.extract("[x]" * 101, "[", "]")
    assert (len(out.matches), out.truncated) == (100, True)


def test_exactly_max_matches_is_not_truncated():
    out = eb.extract("[a][b]", "[", "]", max_matches=2)
    assert (out.matches, out.truncated) == (["a", "b"], False)


def test_one_more_complete_match_sets_truncated():
    assert eb.extract("[a][b][c]", "[", "]", max_matches=2).truncated


def test_unclosed_start_after_the_cap_still_fails():
    with pytest.raises(eb.UnclosedStartMarker) as e:
        eb.extract("[a][b][c", "[", "]", max_matches=2)
    assert e.value.offset == 6
    assert e.value.matches == ["a", "b"]


def test_nothing_is_judged_after_the_extra_match():
    out = eb.extract("[a][b][c", "[", "]", max_matches=1)
    assert (out.matches, out.truncated) == (["a"], True)


def test_astral_characters_count_as_two_code_units():
    with pytest.raises(eb.UnclosedStartMarker) as e:
        eb.extract("😀😀[x", "[", "]")
    assert (e.value.offset, e.value.byte_offset) == (4, 8)


def test_no_case_folding_and_no_normalization():
    assert eb.extract("<B>x</B>", "<b>", "</b>").matches == []
    assert eb.extract("[e\u0301]", "[", "]").matches == ["e\u0301"]
    assert eb.extract("\u00e9[a]", "e\u0301", "]").matches == []


def test_markers_are_literal_not_regex():
    assert eb.extract("a.*b(x)c", ".*", "(").matches == ["b"]


def test_multi_byte_markers_and_content():
    assert eb.extract("前「一」中「二」後", "「", "」").matches == ["一", "二"]


def test_leftmost_occurrence_wins():
    assert eb.extract("aXbXc", "X", "X").matches == ["b"]


def test_search_continues_after_the_end_marker():
    assert eb.extract("[a]b]c[d]", "[", "]").matches == ["a", "d"]


def test_max_matches_one_returns_one():
    out = eb.extract("[a][b]", "[", "]", max_matches=1)
    assert (out.matches, out.truncated) == (["a"], True)


@pytest.mark.parametrize("n", [0, -1, 1001, 10**30])
def test_max_matches_range_is_1_to_1000(n):
    with pytest.raises(eb.InvalidInput) as e:
        eb.extract("x", "[", "]", max_matches=n)
    assert e.value.field == "max_matches"
    assert str(e.value) == f"max_matches must be an integer from 1 to 1000 (it is {n})"
    assert eb.extract("x", "[", "]", max_matches=1000).matches == []


def test_text_of_exactly_256000_bytes_is_accepted_and_one_more_rejected():
    assert eb.extract("é" * 128000, "[", "]").matches == []
    with pytest.raises(eb.InvalidInput) as e:
        eb.extract("é" * 128000 + "x", "[", "]")
    assert e.value.field == "text"
    assert str(e.value) == "text must be at most 256000 UTF-8 bytes long (it is 256001 bytes)"


def test_markers_limit_is_4096_bytes_not_characters():
    assert eb.extract("x", "€" * 1365, "]").matches == []  # 4095 bytes
    with pytest.raises(eb.InvalidInput) as e:
        eb.extract("x", "€" * 1366, "]")  # 4098 bytes
    assert e.value.field == "start"
    assert str(e.value) == "start must be at most 4096 UTF-8 bytes long (it is 4098 bytes)"


@pytest.mark.parametrize("field", ["start", "end"])
def test_markers_must_be_non_empty(field):
    args = {"text": "x", "start": "[", "end": "]", field: ""}
    with pytest.raises(eb.InvalidInput) as e:
        eb.extract(**args)
    assert (e.value.field, str(e.value)) == (field, f"{field} must be a non-empty string")
