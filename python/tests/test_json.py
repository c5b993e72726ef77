"""`run_json` answers byte for byte what `extract-between tool` prints for the same body,
and never raises for bad input."""

import json
import os
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import extract_between as eb

BIN = os.environ.get("EXTRACT_BETWEEN_BIN")
needs_bin = pytest.mark.skipif(not BIN, reason="EXTRACT_BETWEEN_BIN (the built binary) is not set")

BODIES = [
    b'{"text":"pre[one]mid[two]post","start":"[","end":"]"}',
    b'{"text":"a [b","start":"[","end":"]"}',
    b'{"text":"[a][b]","start":"[","end":"]","max_matches":1}',
    b'{"text":"x","start":"[","end":"]","max_matches":5.0}',
    b'{"text":"x","start":"[","end":"]","max_matches":1.5}',
    b'{"text":"x","start":"[","end":"]","max_matches":"5"}',
    b'{"text":"x","start":"","end":"]"}',
    b'{"text":"\\ud800","start":"[","end":"]"}',
    b'{"text":"x","start":"[","end":"]","extra":1}',
    b'{"text":"x","start":"[","text":"y","end":"]"}',
    b'{"text":"x","start":"["}',
    b"[]",
    b"",
    b"   ",
    b"{",
    b"\xef\xbb\xbf{}",
    b'{"text":"\xff","start":"[","end":"]"}',
    ('{"text":"' + "é" * 128001 + '","start":"[","end":"]"}').encode(),
    ('{"text":"x","start":"' + "€" * 1366 + '","end":"]"}').encode(),
    '{"text":"😀「é」","start":"「","end":"」"}'.encode(),
]


def tool(body: bytes) -> str:
    out = subprocess.run([BIN, "tool"], input=body, capture_output=True, check=False)
    assert out.returncode in (0, 1, 2), out.stderr
    return out.stdout.decode().rstrip("\n")


@needs_bin
@pytest.mark.parametrize("body", BODIES, ids=range(len(BODIES)))
def test_run_json_equals_the_binary_tool_mode(body):
    want = tool(body)
    assert eb.run_json(body) == want
    assert eb.run_json(bytearray(body)) == want
    assert eb.run_json(memoryview(body)) == want
    try:
        text = body.decode()
    except UnicodeDecodeError:
        return
    assert eb.run_json(text) == want


@needs_bin
@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=64))
def test_run_json_equals_the_binary_on_junk(body):
    assert eb.run_json(body) == tool(body)


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200),
        st.fixed_dictionaries(
            {"text": st.text(max_size=50), "start": st.text(max_size=3), "end": st.text(max_size=3)},
            optional={"max_matches": st.one_of(st.integers(), st.floats(allow_nan=False), st.none(), st.booleans())},
        ).map(json.dumps),
    )
)
def test_run_json_never_raises_and_answers_json(body):
    answer = json.loads(eb.run_json(body))
    assert ("matches" in answer and "truncated" in answer) or answer["error"]["code"] in (
        "invalid_input",
        "unclosed_start_marker",
    )


def test_a_str_with_a_lone_surrogate_is_an_invalid_input_envelope():
    answer = json.loads(eb.run_json('{"text":"\ud800","start":"[","end":"]"}'))
    assert answer["error"]["code"] == "invalid_input"
