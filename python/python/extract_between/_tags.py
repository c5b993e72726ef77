"""`Tags`: several marker pairs in one pass, and the text outside them, as a streamed reply
arrives (reasoning, tool calls and the answer of a language model), on the native `Tags`."""

from __future__ import annotations

from typing import AsyncIterable, AsyncIterator, Iterable, Iterator, Union

from ._events import Chunk, _aevents, _events
from ._native import Event
from ._native import Tags as _NativeTags


class Tags(_NativeTags):
    """A set of 1 to 64 marker pairs ``(start, end)`` followed in one pass: from each position
    the leftmost start marker opens a match (the longest where several begin at one place),
    and that pair's end marker closes it; start markers inside a match are its text. Start
    markers must be distinct (``InvalidInput`` names the pair otherwise); an end may repeat
    or equal any start. One pair is exactly the card's pair.

    - ``findall(text)``: every match as ``(pair index, text)``.
    - ``scanner(outside=False)``: a resumable `TagScanner` (``feed``, ``finish``).
    - ``iter_events(chunks, outside=False)`` / ``aiter_events(async_chunks, outside=False)``:
      the `Event`s of a streamed text, ``"outside"`` ones too with ``outside=True``.

    >>> tags = Tags([("<think>", "</think>"), ("<tool_call>", "</tool_call>")])
    >>> reply = ["<think>The user", " wants 2+2</th", "ink>It is 4. <tool_", "call>{}</tool_call>"]
    >>> [(e.kind, e.tag, e.text) for e in tags.iter_events(reply, outside=True) if e.kind != "close"]
    [('open', 0, None), ('text', 0, 'The user'), ('text', 0, ' wants 2+2'), ('outside', None, 'It is 4. '), ('open', 1, None), ('text', 1, '{}')]
    """

    __slots__ = ()
    __module__ = "extract_between"

    def iter_events(self, source: Union[Chunk, Iterable[Chunk]], outside: bool = False) -> Iterator[Event]:
        """The events of `source` (an iterable of ``str`` or bytes chunks, or one ``str`` or
        bytes), each as soon as the chunk that decides it has been read; ``"outside"`` events
        for the text outside every match with ``outside=True``. A start marker with no end
        raises `UnclosedStartMarker` (the pair on ``.tag``) after the events before it.

        >>> tags = Tags([("<think>", "</think>")])
        >>> "".join(e.text for e in tags.iter_events(["<think>hm</thi", "nk>Four."], outside=True) if e.kind == "outside")
        'Four.'
        """
        chunks: Iterable[Chunk] = (source,) if isinstance(source, (str, bytes, bytearray, memoryview)) else source
        return _events(self.scanner(outside=outside), chunks)

    def aiter_events(self, source: AsyncIterable[Chunk], outside: bool = False) -> AsyncIterator[Event]:
        """`iter_events` over an async iterable of chunks (an OpenAI or Anthropic SDK's
        streamed text deltas, an httpx response's ``aiter_text()``).

        >>> import asyncio
        >>> async def reply():
        ...     for token in ("<think>hm", "</think>", "Four", "."):
        ...         yield token
        >>> async def answer():
        ...     tags = Tags([("<think>", "</think>")])
        ...     return "".join([e.text async for e in tags.aiter_events(reply(), outside=True) if e.kind == "outside"])
        >>> asyncio.run(answer())
        'Four.'
        """
        if not hasattr(source, "__aiter__"):
            raise TypeError(f"source must be an async iterable of str or bytes chunks, not {type(source).__name__}")
        return _aevents(self.scanner(outside=outside), source)
