"""The package's exceptions. The native module raises them; they are written in Python so
that they take keyword attributes, pickle, and read like any other Python exception."""

from __future__ import annotations

from typing import Any, Optional, Sequence


class ExtractError(ValueError):
    """An extraction failed. ``byte_offset`` says where in UTF-8 bytes when the input is at
    fault (invalid UTF-8); ``matches`` holds the matches a `Scanner` call completed before the
    error (empty for `extract` and `finditer`, which yield theirs first).

    >>> from extract_between import ExtractError, finditer
    >>> list(finditer(b"ok \\xff", "[", "]"))
    Traceback (most recent call last):
        ...
    extract_between._errors.ExtractError: invalid UTF-8 at byte offset 3
    """

    def __init__(
        self,
        message: str,
        *,
        byte_offset: Optional[int] = None,
        matches: Sequence[Any] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.byte_offset = byte_offset
        self.matches = list(matches)

    def __reduce__(self) -> Any:
        return (_rebuild, (type(self), self.message, self.__dict__))


class UnclosedStartMarker(ExtractError):
    """A start marker has no end marker after it: the card's ``unclosed_start_marker``.
    ``offset`` is where that start marker begins in UTF-16 code units, as the card counts;
    ``byte_offset`` in UTF-8 bytes; ``row`` the row of a column (`extract_all`), else None.

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
        offset: int,
        byte_offset: int,
        matches: Sequence[Any] = (),
        row: Optional[int] = None,
    ) -> None:
        super().__init__(message, byte_offset=byte_offset, matches=matches)
        self.offset = offset
        self.row = row

    def __str__(self) -> str:
        where = f" in row {self.row}" if self.row is not None else ""
        return f"{self.message}{where} at UTF-16 offset {self.offset} (byte offset {self.byte_offset})"


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

    def __init__(self, message: str, *, field: Optional[str]) -> None:
        super().__init__(message)
        self.field = field


def _rebuild(cls: type, message: str, state: dict) -> ExtractError:
    error = cls.__new__(cls)
    ValueError.__init__(error, message)
    error.__dict__.update(state)
    return error
