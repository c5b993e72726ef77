"""Extract the exact text between a literal start marker and a literal end marker, left to
right and without overlap, with the semantics of the tool card ``text-extract-between``
1.0.0: UTF-16 code-unit positions, a ``max_matches`` cap with a ``truncated`` flag, and the
"unclosed start marker" error. The engine is the Rust library ``extract-between``.

- `extract`: one text, the card's limits and cap, an `Extraction`.
- `run_json`: the card's JSON contract, request JSON in, response JSON out; never raises
  for bad input.
- `findall`: every match of any source as a list of `str`, without the card's limits or
  cap (a `str` or `bytes` in one call).
- `finditer` / `afinditer`: stream any source (a str, bytes, a binary file, an iterable or
  async iterable of chunks) with no card limits, yielding `Match` objects, in memory bounded
  by a chunk and ``max_match_bytes``.
- `Scanner`: the resumable scanner, for callers who own the read loop.
- `iter_events` / `aiter_events` / `EventScanner`: a match's life as a streamed text (a
  language model's tokens) arrives: ``"open"``, its content in ``"text"`` pieces as they
  come, ``"close"``; an `Event` each, nothing of a match held.
- `Tags`: several marker pairs in one pass, and the text outside them (a model's reply split
  into reasoning, tool calls and answer as it streams): ``findall``, ``scanner``,
  ``iter_events`` and ``aiter_events``.
- `extract_all` / `extract_first`: Arrow string columns in (pyarrow, polars, pandas, DuckDB),
  a ``list<string>`` or ``string`` column out; `extract_between.polars` and
  `extract_between.spark` wrap them for those engines.

>>> import extract_between as eb
>>> eb.extract("pre[one]mid[two]post", "[", "]").matches
['one', 'two']

``__version__`` is the installed distribution's version, the same as the Rust crates':

>>> import importlib.metadata
>>> eb.__version__ == importlib.metadata.version("extract-between")
True
"""

from importlib.metadata import version as _distribution_version

from ._aio import afinditer
from ._columns import extract_all, extract_first
from ._errors import ExtractError, InvalidInput, InvalidUtf8, MatchTooLarge, UnclosedStartMarker
from ._events import aiter_events, iter_events
from ._findall import findall
from ._tags import Tags
from ._native import (
    DEFAULT_MAX_MATCH_BYTES,
    DEFAULT_MAX_MATCHES,
    MAX_MARKER_BYTES,
    MAX_MATCHES,
    MAX_TEXT_BYTES,
    Event,
    EventScanner,
    Extraction,
    Match,
    MatchIter,
    Scanner,
    TagScanner,
    extract,
    finditer,
    run_json,
)

__version__: str = _distribution_version("extract-between")

__all__ = [
    "DEFAULT_MAX_MATCH_BYTES",
    "DEFAULT_MAX_MATCHES",
    "MAX_MARKER_BYTES",
    "MAX_MATCHES",
    "MAX_TEXT_BYTES",
    "Event",
    "EventScanner",
    "ExtractError",
    "Extraction",
    "InvalidInput",
    "InvalidUtf8",
    "Match",
    "MatchTooLarge",
    "MatchIter",
    "Scanner",
    "TagScanner",
    "Tags",
    "UnclosedStartMarker",
    "afinditer",
    "aiter_events",
    "extract",
    "extract_all",
    "extract_first",
    "findall",
    "finditer",
    "iter_events",
    "run_json",
]
