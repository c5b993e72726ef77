"""`afinditer`: `finditer` over an async source, on the native `Scanner`."""

from __future__ import annotations

from typing import Any, AsyncIterable, AsyncIterator, Union

from ._native import Match, Scanner

CHUNK_BYTES = 1 << 16

AsyncSource = Union[AsyncIterable[Any], Any]


async def afinditer(source: AsyncSource, start: str, end: str) -> AsyncIterator[Match]:
    """Iterates over every match in an async source, streaming, as `finditer` does.

    `source` is an async iterable of bytes chunks (an aiohttp response's
    ``content.iter_chunked(n)``, an httpx response's ``aiter_bytes()``) or an object with an
    async ``read(n)`` such as an ``asyncio.StreamReader``.

    >>> import asyncio
    >>> async def chunks():
    ...     for piece in (b"<t>a</", b"t> <t>b</t>"):
    ...         yield piece
    >>> async def main():
    ...     return [m.text async for m in afinditer(chunks(), "<t>", "</t>")]
    >>> asyncio.run(main())
    ['a', 'b']
    """
    scanner = Scanner(start, end)
    if hasattr(source, "__aiter__"):
        async for chunk in source:
            if isinstance(chunk, str):
                raise TypeError("chunks of source must be bytes-like, not str: give bytes chunks")
            for m in scanner.feed(chunk):
                yield m
    elif hasattr(source, "read"):
        while True:
            chunk = await source.read(CHUNK_BYTES)
            if not chunk:
                break
            if isinstance(chunk, str):
                raise TypeError("source.read() returned str: give a binary stream")
            for m in scanner.feed(chunk):
                yield m
    else:
        raise TypeError(
            "source must be an async iterable of bytes chunks or have an async read(), "
            f"not {type(source).__name__}"
        )
    for m in scanner.finish():
        yield m
