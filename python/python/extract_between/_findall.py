"""`findall`: every match as a `str`, without the card's limits or cap."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Union

from . import _native
from ._errors import ExtractError
from ._native import DEFAULT_MAX_MATCH_BYTES, finditer

if TYPE_CHECKING:
    from ._native import _Source as Source


def findall(source: Source, start: Union[str, bytes], end: Union[str, bytes], *, max_match_bytes: Optional[int] = DEFAULT_MAX_MATCH_BYTES) -> List[str]:
    """Every match of `source`, in order, as a list of `str`: what a ``re.findall`` user
    reaches for, with the card's semantics and none of its limits or cap (as `finditer`).

    `source` is anything `finditer` takes: a `str` or `bytes` is scanned in one call with
    the GIL released; a file, buffer or iterable of chunks is streamed (``max_match_bytes``
    bounds a match there, as in `finditer`). An unclosed start marker raises
    `UnclosedStartMarker`, and invalid UTF-8 `ExtractError`, each with every match before it
    in ``.matches``: nothing found is lost.

    >>> from extract_between import findall, UnclosedStartMarker
    >>> findall("pre[one]mid[two]post", "[", "]")
    ['one', 'two']
    >>> try:
    ...     findall("[a] [b", "[", "]")
    ... except UnclosedStartMarker as e:
    ...     print(e.matches, e.offset)
    ['a'] 4
    """
    if isinstance(source, (str, bytes)):
        found = _native.findall(source, start, end)
        if found is not None:
            return found
    matches: List[str] = []
    try:
        for m in finditer(source, start, end, max_match_bytes=max_match_bytes):
            matches.append(m.text)
    except ExtractError as e:
        e.matches = matches + list(e.matches)
        raise
    return matches
