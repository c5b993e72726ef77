"""The package's types catch mistakes: `mypy --strict` accepts a file of right uses and
refuses each line of a file of deliberate mistakes (an `on_unclosed` that does not exist, a
list as a column, a column answer taken for an int, a number as a source, markers that are
not strings)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

RIGHT = """
import io
from typing import Optional

import polars as pl

import extract_between as eb
from arro3.core import Array

out: Array = eb.extract_all(pl.Series(["[a]"]), "[", "]", max_matches=None, on_unclosed="partial")
first: Array = eb.extract_first(pl.Series(["[a]"]), "[", "]", on_unclosed="null")
texts: list[str] = [m.text for m in eb.finditer(io.BytesIO(b"[a]"), "[", "]")]
more: list[str] = [m.text for m in eb.finditer([b"[a]", bytearray(b"[b]")], "[", "]", max_match_bytes=None)]
found: list[str] = eb.extract("[a]", "[", "]", 5).matches
n: Optional[int] = eb.UnclosedStartMarker("message alone").offset
from extract_between.polars import extract_all as pl_all, extract_first as pl_first
frame: pl.DataFrame = pl.DataFrame({"t": ["[a]"]}).select(pl_all("t", "[", "]", max_matches=2), pl_first(pl.col("t"), "[", "]").alias("f"))
"""

MISTAKES = {
    "on_unclosed that does not exist": 'eb.extract_all(pl.Series(["x"]), "[", "]", on_unclosed="skip")',
    "a list as a column": 'eb.extract_first(["[a]"], "[", "]")',
    "the answer taken for an int": 'x: int = eb.extract_first(pl.Series(["x"]), "[", "]")',
    "a number as a source": 'eb.finditer(12345, "[", "]")',
    "a marker that is not a str": 'eb.extract("[a]", 1, "]")',
    "max_matches as a str": 'eb.extract("[a]", "[", "]", "5")',
    "a polars function given a number as its column": 'import extract_between.polars as ebp; ebp.extract_all(5, "[", "]")',
}


def mypy(tmp_path, name: str, source: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="mypy runs the typing test (pip install mypy)")
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


def test_right_uses_type_check(tmp_path):
    out = mypy(tmp_path, "right", RIGHT)
    assert out.returncode == 0, out.stdout + out.stderr


def test_each_mistake_is_refused_on_its_line(tmp_path):
    header = "import polars as pl\nimport extract_between as eb\n"
    lines = list(MISTAKES.values())
    out = mypy(tmp_path, "mistakes", header + "\n".join(lines) + "\n")
    refused = {int(m) for m in re.findall(r"mistakes\.py:(\d+): error", out.stdout)}
    for offset, (what, line) in enumerate(MISTAKES.items(), start=3):
        assert offset in refused, f"mypy --strict accepts {what}: {line}\n{out.stdout}"
