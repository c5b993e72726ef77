"""The package's exceptions. The native module raises them; they are written in Python so
that they take keyword attributes, pickle, and read like any other Python exception.

Each can be built from its message alone, its attributes then None: engines that run the
functions (polars) re-raise an exception by calling its class with the message, and the
message still says everything."""

from __future__ import annotations

from typing import Any, Optional, Sequence


class ExtractError(ValueError):
    """An extraction failed. ``byte_offset`` says where in UTF-8 bytes when the input is at
    fault (invalid UTF-8); ``row`` the row of a column (`extract_all`), else None;
    ``matches`` holds the matches a `Scanner` call completed before the error (empty for
    `extract` and `finditer`, which yield theirs first), ``events`` the events an
    `EventScanner` call decided before it (`iter_events` yields them first).

    >>> from extract_between import ExtractError, finditer
    >>> list(finditer(b"ok \\xff", "[", "]"))
    Traceback (most recent call last):
        ...
    extract_between.InvalidUtf8: invalid UTF-8 at byte offset 3
    """

    def __init__(
        self,
        message: str,
        *,
        byte_offset: Optional[int] = None,
        matches: Sequence[Any] = (),
        row: Optional[int] = None,
        events: Sequence[Any] = (),
        placed: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.byte_offset = byte_offset
        self.matches = list(matches)
        self.events = list(events)
        self.row = row
        # A column's row: the library's words with the row's place (the engine wrappers
        # re-place them in the batch they were handed).
        self.placed = placed

    def __str__(self) -> str:
        return getattr(self, "placed", None) or self.message

    def __reduce__(self) -> Any:
        return (_rebuild, (type(self), self.message, self.__dict__))


class UnclosedStartMarker(ExtractError):
    """A start marker has no end marker after it: the card's ``unclosed_start_marker``.
    ``offset`` is where that start marker begins in UTF-16 code units, as the card counts;
    ``byte_offset`` in UTF-8 bytes; ``row`` the row of a column (`extract_all`), else None,
    and ``excerpt`` the first 60 characters of that row's text; ``tag`` the index of the pair
    left open in a `Tags` scan, else None.

    >>> from extract_between import UnclosedStartMarker, extract
    >>> try:
    ...     extract("é [a", "[", "]")
    ... except UnclosedStartMarker as e:
    ...     print(e.offset, e.byte_offset, e.message)
    2 3 unclosed start marker
    """

    def __init__(
        self,
        message: str = "unclosed start marker",
        *,
        offset: Optional[int] = None,
        byte_offset: Optional[int] = None,
        matches: Sequence[Any] = (),
        row: Optional[int] = None,
        excerpt: Optional[str] = None,
        events: Sequence[Any] = (),
        placed: Optional[str] = None,
        tag: Optional[int] = None,
    ) -> None:
        super().__init__(message, byte_offset=byte_offset, matches=matches, row=row, events=events, placed=placed)
        self.offset = offset
        self.excerpt = excerpt
        # The pair left open, for a `Tags` scan.
        self.tag = tag

    def __str__(self) -> str:
        if self.offset is None or self.row is not None or getattr(self, "placed", None):
            # A column's row: the message is already the library's whole sentence.
            return super().__str__()
        return f"{self.message} at UTF-16 offset {self.offset} (byte offset {self.byte_offset})"


class InvalidUtf8(ExtractError):
    """Bytes that are not UTF-8, from ``byte_offset`` on: a `bytes` text or chunk, or a row of
    a column (``row`` says which). Every door names this class for the same row (DuckDB's and
    Spark's messages begin with it).

    >>> from extract_between import InvalidUtf8, finditer
    >>> try:
    ...     list(finditer(b"[a] \\xff", "[", "]"))
    ... except InvalidUtf8 as e:
    ...     print(e.byte_offset, e)
    4 invalid UTF-8 at byte offset 4
    """


class MatchTooLarge(ExtractError):
    """A match grew past ``max_match_bytes`` (`finditer`, `afinditer`, `Scanner`): ``offset``
    and ``byte_offset`` say where its content begins (UTF-16 code units, UTF-8 bytes),
    ``limit`` the limit it broke. What was held of it is freed.

    >>> from extract_between import MatchTooLarge, finditer
    >>> try:
    ...     list(finditer("[ok] [" + "x" * 100 + "]", "[", "]", max_match_bytes=10))
    ... except MatchTooLarge as e:
    ...     print(e.byte_offset, e.limit)
    6 10
    """

    def __init__(
        self,
        message: str,
        *,
        offset: Optional[int] = None,
        byte_offset: Optional[int] = None,
        limit: Optional[int] = None,
        matches: Sequence[Any] = (),
    ) -> None:
        super().__init__(message, byte_offset=byte_offset, matches=matches)
        self.offset = offset
        self.limit = limit


class InvalidInput(ExtractError):
    """An argument breaks the card's input schema or limits: the card's ``invalid_input``.
    ``field`` names it (``text``, ``start``, ``end``, ``max_matches``, or ``source``); the
    message is the one the JSON contract gives.

    >>> from extract_between import InvalidInput, extract
    >>> try:
    ...     extract("x", "", "]")
    ... except InvalidInput as e:
    ...     print(e.field, "-", e)
    start - start must be a non-empty string
    """

    def __init__(self, message: str, *, field: Optional[str] = None) -> None:
        super().__init__(message)
        self.field = field


def _rebuild(cls: type, message: str, state: dict) -> ExtractError:
    error = cls.__new__(cls)
    ValueError.__init__(error, message)
    error.__dict__.update(state)
    return error


# Tracebacks and reprs name the public module, where users import the classes from.
for _error in (ExtractError, UnclosedStartMarker, InvalidUtf8, MatchTooLarge, InvalidInput):
    _error.__module__ = "extract_between"
