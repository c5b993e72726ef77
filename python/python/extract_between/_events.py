"""`iter_events` and `aiter_events`: a match's life as a streamed text arrives, on the
native `EventScanner`."""

from __future__ import annotations

from typing import AsyncIterable, AsyncIterator, Iterable, Iterator, Union

from ._errors import ExtractError
from ._native import Event, EventScanner, TagScanner

Chunk = Union[str, bytes, bytearray, memoryview]
"""One piece of a streamed text: a ``str`` token, or bytes cut anywhere."""


def iter_events(source: Union[Chunk, Iterable[Chunk]], start: Union[str, bytes], end: Union[str, bytes]) -> Iterator[Event]:
    """The events of every match in `source` (an iterable of ``str`` or bytes chunks: a
    language model's streamed tokens, a socket's reads; or one ``str`` or bytes), each as soon
    as the chunk that decides it has been read: ``"open"`` at a start marker, ``"text"`` for
    each piece of the content as it comes, ``"close"`` at the end marker. Nothing of a match is
    held, so a match of any size costs nothing. A start marker with no end after it raises
    `UnclosedStartMarker` after the events before it. The markers are checked when it is
    called, not when iteration starts.

    >>> tokens = ["<think>hm</think>The ", "answer: <ans", "wer>4", "2</answer>"]
    >>> [(e.kind, e.text) for e in iter_events(tokens, "<answer>", "</answer>")]
    [('open', None), ('text', '4'), ('text', '2'), ('close', None)]
    """
    scanner = EventScanner(start, end)
    chunks: Iterable[Chunk] = (source,) if isinstance(source, (str, bytes, bytearray, memoryview)) else source
    return _events(scanner, chunks)


def _events(scanner: Union[EventScanner, TagScanner], chunks: Iterable[Chunk]) -> Iterator[Event]:
    for chunk in chunks:
        yield from scanner.feed(chunk)
    try:
        last = scanner.finish()
    except ExtractError as error:
        # What the open match had (its last text) comes before the error.
        yield from getattr(error, "events", [])
        raise error
    yield from last


def aiter_events(source: AsyncIterable[Chunk], start: Union[str, bytes], end: Union[str, bytes]) -> AsyncIterator[Event]:
    """`iter_events` over an async iterable of chunks (an OpenAI or Anthropic SDK's streamed
    response's text deltas, an httpx response's ``aiter_text()``).

    >>> import asyncio
    >>> async def tokens():
    ...     for token in ("x <t", ">a", "b</", "t>"):
    ...         yield token
    >>> async def main():
    ...     return [e.text async for e in aiter_events(tokens(), "<t>", "</t>") if e.kind == "text"]
    >>> asyncio.run(main())
    ['a', 'b']
    """
    scanner = EventScanner(start, end)
    if not hasattr(source, "__aiter__"):
        raise TypeError(f"source must be an async iterable of str or bytes chunks, not {type(source).__name__}")
    return _aevents(scanner, source)


async def _aevents(scanner: Union[EventScanner, TagScanner], source: AsyncIterable[Chunk]) -> AsyncIterator[Event]:
    async for chunk in source:
        for event in scanner.feed(chunk):
            yield event
    try:
        last = scanner.finish()
    except ExtractError as error:
        for event in getattr(error, "events", []):
            yield event
        raise error
    for event in last:
        yield event
