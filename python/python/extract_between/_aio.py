"""`afinditer`: `finditer` over an async source, on the native `Scanner`."""

from __future__ import annotations

from typing import Any, AsyncIterable, AsyncIterator, Awaitable, Optional, Protocol, Union

from ._native import DEFAULT_MAX_MATCH_BYTES, Match, Scanner

CHUNK_BYTES = 1 << 16

Buffer = Union[bytes, bytearray, memoryview]
Chunk = Union[Buffer, str]


class AsyncReader(Protocol):
    """An object with an async ``read(n)``, such as an ``asyncio.StreamReader``."""

    def read(self, n: int = ..., /) -> Awaitable[Optional[bytes]]: ...


AsyncSource = Union[AsyncIterable[Chunk], AsyncReader]
"""What `afinditer` reads."""


def afinditer(
    source: AsyncSource,
    start: Union[str, bytes],
    end: Union[str, bytes],
    *,
    max_match_bytes: Optional[int] = DEFAULT_MAX_MATCH_BYTES,
) -> AsyncIterator[Match]:
    """Iterates over every match in an async source, streaming, as `finditer` does, with the
    same ``max_match_bytes``. The markers and the source's kind are checked when it is
    called, not when iteration starts.

    `source` is an async iterable of chunks, bytes (an aiohttp response's
    ``content.iter_chunked(n)``, an httpx response's ``aiter_bytes()``) or ``str`` (a language
    model's streamed tokens), or an object with an async ``read(n)`` such as an
    ``asyncio.StreamReader``.

    >>> import asyncio
    >>> async def chunks():
    ...     for piece in (b"<t>a</", b"t> <t>b</t>"):
    ...         yield piece
    >>> async def main():
    ...     return [m.text async for m in afinditer(chunks(), "<t>", "</t>")]
    >>> asyncio.run(main())
    ['a', 'b']
    """
    scanner = Scanner(start, end, max_match_bytes=max_match_bytes)
    if hasattr(source, "__aiter__"):
        return _from_chunks(scanner, source)
    if hasattr(source, "read"):
        return _from_reads(scanner, source)
    raise TypeError(
        "source must be an async iterable of bytes or str chunks or have an async read(), "
        f"not {type(source).__name__}"
    )


async def _from_chunks(scanner: Scanner, source: AsyncIterable[Any]) -> AsyncIterator[Match]:
    async for chunk in source:
        for m in scanner.feed(chunk):
            yield m
    for m in scanner.finish():
        yield m


async def _from_reads(scanner: Scanner, source: AsyncReader) -> AsyncIterator[Match]:
    while True:
        chunk = await source.read(CHUNK_BYTES)
        if chunk is None:
            # As `finditer` answers a blocking file that returns None.
            raise TypeError(
                "source.read() returned None: the stream is non-blocking and has no data; give a blocking file"
            )
        if isinstance(chunk, str):
            raise TypeError(
                "the answer of source.read() is a str, not bytes: open files in binary mode ('rb') and give bytes chunks"
            )
        if not chunk:
            break
        for m in scanner.feed(chunk):
            yield m
    for m in scanner.finish():
        yield m
