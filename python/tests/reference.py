"""The card's loop, literally: over UTF-16 code units, as JavaScript's ``indexOf`` runs it.
Obviously correct and slow; the properties hold the engine equal to it."""

from __future__ import annotations

from array import array
from typing import List, Optional, Tuple


class Unclosed(Exception):
    def __init__(self, offset: int, matches: List["Found"]) -> None:
        super().__init__(offset)
        self.offset = offset
        self.matches = matches


Found = Tuple[str, int, int]  # text, utf16_start, utf16_end


def _units(s: str) -> str:
    """The string's UTF-16 code units, one Python character each."""
    a = array("H")
    a.frombytes(s.encode("utf-16-le"))
    return "".join(map(chr, a))


def _text(units: str) -> str:
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le")


def extract(text: str, start: str, end: str, max_matches: Optional[int] = None) -> Tuple[List[Found], bool]:
    t, s, e = _units(text), _units(start), _units(end)
    matches: List[Found] = []
    pos = 0
    while True:
        at = t.find(s, pos)
        if at < 0:
            return matches, False
        content = at + len(s)
        close = t.find(e, content)
        if close < 0:
            raise Unclosed(at, matches)
        if max_matches is not None and len(matches) == max_matches:
            return matches, True
        matches.append((_text(t[content:close]), content, close))
        pos = close + len(e)
