"""Errors and their attributes, `TypeError` for wrong Python types, pickling."""

import pickle
import sys

import pytest

import extract_between as eb


def test_unclosed_start_marker_attributes():
    with pytest.raises(eb.UnclosedStartMarker) as e:
        eb.extract("😀[a] é[b", "[", "]")
    err = e.value
    assert isinstance(err, eb.ExtractError) and isinstance(err, ValueError)
    assert (err.offset, err.byte_offset, err.message) == (7, 10, "unclosed start marker")
    assert err.matches == ["a"]
    assert str(err) == "unclosed start marker at UTF-16 offset 7 (byte offset 10)"


def test_invalid_input_names_the_field():
    with pytest.raises(eb.InvalidInput) as e:
        eb.extract("x", "[", "x" * 4097)
    assert e.value.field == "end"
    assert e.value.message == str(e.value) == "end must be at most 4096 UTF-8 bytes long (it is 4097 bytes)"


@pytest.mark.parametrize("field", ["text", "start", "end"])
def test_a_lone_surrogate_is_invalid_input(field):
    args = {"text": "ab", "start": "[", "end": "]", field: "a\ud800"}
    with pytest.raises(eb.InvalidInput) as e:
        eb.extract(**args)
    assert e.value.field == field
    assert "lone surrogate" in str(e.value) and "index 1" in str(e.value)


@pytest.mark.parametrize(
    "args",
    [
        (b"text", "[", "]"),
        ("text", b"[", "]"),
        ("text", "[", None),
        ("text", "[", "]", "5"),
        ("text", "[", "]", 5.0),
        ("text", "[", "]", True),
    ],
)
def test_wrong_types_raise_type_error(args):
    with pytest.raises(TypeError):
        eb.extract(*args)


def test_wrong_types_elsewhere_raise_type_error():
    with pytest.raises(TypeError):
        eb.run_json(42)
    with pytest.raises(TypeError):
        eb.finditer(42, "[", "]")
    with pytest.raises(TypeError, match="chunk must be bytes-like or str, not int"):
        eb.Scanner("[", "]").feed(5)
    with pytest.raises(TypeError):
        eb.Scanner(1, "]")
    with pytest.raises(TypeError, match="chunk 0 of source must be bytes-like or str, not float"):
        list(eb.finditer(iter([1.5]), "[", "]"))


def test_str_chunks_are_taken_as_their_utf8_and_a_lone_surrogate_is_named():
    assert [m.text for m in eb.Scanner("[", "]").feed("é[😀]")] == ["😀"]
    assert [(m.text, m.utf16_start) for m in eb.finditer(iter(["é[", "😀", "] [x]"]), "[", "]")] == [("😀", 2), ("x", 7)]
    with pytest.raises(eb.InvalidInput, match="chunk must be valid Unicode text.*index 1"):
        eb.Scanner("[", "]").feed("a\ud800")
    with pytest.raises(eb.InvalidInput, match="chunk 1 of source must be valid Unicode text"):
        list(eb.finditer(iter(["ok", "\ud800"]), "[", "]"))


def test_markers_of_streams_obey_the_card():
    with pytest.raises(eb.InvalidInput) as e:
        eb.finditer(b"x", "", "]")
    assert e.value.field == "start"
    with pytest.raises(eb.InvalidInput) as e:
        eb.Scanner("[", "€" * 1366)
    assert e.value.field == "end"


def test_errors_pickle_with_their_attributes():
    with pytest.raises(eb.UnclosedStartMarker) as e:
        eb.extract("[a] [b", "[", "]")
    again = pickle.loads(pickle.dumps(e.value))
    assert type(again) is eb.UnclosedStartMarker
    assert (again.offset, again.byte_offset, again.matches, str(again)) == (4, 4, ["a"], str(e.value))
    with pytest.raises(eb.InvalidInput) as e:
        eb.extract("x", "[", "]", 0)
    again = pickle.loads(pickle.dumps(e.value))
    assert (again.field, str(again)) == ("max_matches", str(e.value))


def test_scanner_errors_carry_the_matches_of_the_call():
    s = eb.Scanner("[", "]")
    with pytest.raises(eb.ExtractError) as e:
        s.feed(b"[a] [b] \xff [c]")
    assert [m.text for m in e.value.matches] == ["a", "b"]
    assert e.value.byte_offset == 8
    assert not isinstance(e.value, eb.UnclosedStartMarker)
    # Errors are terminal: the scanner has ended.
    with pytest.raises(ValueError, match=r"Scanner.feed\(\) was called after it raised an error"):
        s.feed(b"[d]")


def test_values_compare_and_print():
    out = eb.extract("[a]", "[", "]")
    assert out == eb.extract("x[a]y", "[", "]")
    assert out != eb.extract("[b]", "[", "]")
    assert repr(out) == "Extraction(matches=['a'], truncated=False)"
    m, = eb.finditer("[a]", "[", "]")
    assert m == next(eb.finditer(b"[a]", "[", "]"))
    assert hash(m) == hash(next(eb.finditer(b"[a]", "[", "]")))
    assert repr(m) == "Match(text='a', byte_start=1, byte_end=2, utf16_start=1, utf16_end=2)"


def test_repeated_and_changing_markers_and_caps_agree_with_fresh_calls():
    # extract keeps the last markers' finders per thread; every change must be seen.
    text = "[a][b][c]"
    s, e = "[", "]"
    assert eb.extract(text, s, e, 1).matches == ["a"]
    assert eb.extract(text, s, e, 2).matches == ["a", "b"]
    assert eb.extract(text, s, e).matches == ["a", "b", "c"]
    assert eb.extract(text, "a", "]").matches == [""]
    assert eb.extract(text, "".join(["[", ""]), "]", 1).truncated
    with pytest.raises(eb.InvalidInput):
        eb.extract(text, s, e, 0)
    with pytest.raises(eb.InvalidInput):
        eb.extract(text, "", e)
    assert eb.extract(text, s, e, 3) == eb.extract(text, "[", "]", 3)


ROW_ERROR = 'unclosed start marker at UTF-16 offset 3 (byte offset 5); the row begins "😀 [x"'


def test_every_host_words_a_rows_error_the_same():
    """The library's row API words the error; each host adds only which row it is."""
    pa = pytest.importorskip("pyarrow")
    texts = ["[a]", "😀 [x"]
    with pytest.raises(eb.UnclosedStartMarker) as arrow:
        eb.extract_all(pa.array(texts), "[", "]")
    assert str(arrow.value) == f"row 1: {ROW_ERROR}"
    assert (arrow.value.row, arrow.value.offset, arrow.value.byte_offset) == (1, 3, 5)
    assert arrow.value.excerpt == "😀 [x"
    pl = pytest.importorskip("polars")
    import extract_between.polars  # noqa: F401

    with pytest.raises(pl.exceptions.ComputeError) as plugin:
        pl.DataFrame({"t": texts}).select(pl.col("t").extract_between.first("[", "]"))
    assert f"UnclosedStartMarker: row 1: {ROW_ERROR}" in str(plugin.value)
    duckdb = pytest.importorskip("duckdb")
    import extract_between.duckdb

    native = extract_between.duckdb.connect()
    python = duckdb.connect()
    extract_between.duckdb.register(python, native=False)
    for con in (native, python):
        con.register("t", pa.table({"t": texts}))
        with pytest.raises(duckdb.Error) as sql:
            con.sql("SELECT extract_between_all(t, '[', ']') FROM t").fetchall()
        assert f"UnclosedStartMarker: row 1: {ROW_ERROR}" in str(sql.value)


def test_a_row_that_is_not_utf8_names_its_row_and_offset():
    pa = pytest.importorskip("pyarrow")
    offsets = pa.array([0, 3, 7], pa.int32()).buffers()[1]
    column = pa.Array.from_buffers(pa.string(), 2, [None, offsets, pa.py_buffer(b"[a]ok \xff")])
    with pytest.raises(eb.ExtractError) as e:
        eb.extract_all(column, "[", "]")
    assert str(e.value) == 'row 1: invalid UTF-8 at byte offset 3; the row begins "ok "'
    assert (e.value.row, e.value.byte_offset) == (1, 3)


def test_the_errors_are_named_by_the_public_module():
    import traceback

    for cls in (eb.ExtractError, eb.UnclosedStartMarker, eb.MatchTooLarge, eb.InvalidInput):
        assert cls.__module__ == "extract_between", cls
    try:
        eb.extract("[a", "[", "]")
    except eb.UnclosedStartMarker as e:
        line = traceback.format_exception_only(type(e), e)[-1]
    assert line.startswith("extract_between.UnclosedStartMarker: unclosed start marker"), line


def test_signatures_show_the_real_defaults():
    import inspect

    for f in (eb.finditer, eb.Scanner, eb.findall, eb.afinditer):
        default = inspect.signature(f).parameters["max_match_bytes"].default
        assert default == eb.DEFAULT_MAX_MATCH_BYTES, (f, default)
    assert inspect.signature(eb.extract).parameters["max_matches"].default == eb.DEFAULT_MAX_MATCHES


def test_bytes_markers_are_taken_as_utf8_as_re_takes_bytes_patterns():
    assert eb.findall(b"a[x]b[\xc3\xa9]", b"[", b"]") == ["x", "é"]
    assert [m.text for m in eb.finditer(b"<b>1</b>", b"<b>", "</b>")] == ["1"]
    assert [e.kind for e in eb.iter_events([b"[a]"], b"[", b"]")] == ["open", "text", "close"]
    with pytest.raises(eb.InvalidInput, match="start is not valid UTF-8"):
        eb.findall(b"x", b"\xff", b"]")


def test_a_path_gets_a_hint_to_open_it():
    import pathlib

    with pytest.raises(TypeError, match=r"source is a path \(.*\), not a file: give the open file"):
        eb.finditer(pathlib.Path("dump.html"), "<t>", "</t>")


def test_a_str_that_names_a_file_is_scanned_as_text_with_a_warning(tmp_path):
    path = tmp_path / "dump.html"
    path.write_text("<t>in the file</t>")
    with pytest.warns(UserWarning, match=r"names a file: the text is what is scanned; to scan the file, give open\("):
        assert list(eb.finditer(str(path), "<t>", "</t>")) == []
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [m.text for m in eb.finditer("<t>x</t>", "<t>", "</t>")] == ["x"]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes are shown from Python 3.11")
def test_a_text_past_the_card_limit_notes_findall_and_finditer():
    with pytest.raises(eb.InvalidInput) as raised:
        eb.extract("x" * 256_001, "[", "]")
    assert str(raised.value) == "text must be at most 256000 UTF-8 bytes long (it is 256001 bytes)"
    assert any("findall and finditer" in note for note in raised.value.__notes__)
