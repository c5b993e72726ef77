"""The native module: the engine of the Rust library `extract-between`."""

from typing import IO, Any, Iterable, Iterator, Literal, Optional, Protocol, Union, final

MAX_TEXT_BYTES: int
MAX_MARKER_BYTES: int
MAX_MATCHES: int
DEFAULT_MAX_MATCHES: int

__all__ = [
    "DEFAULT_MAX_MATCHES",
    "Extraction",
    "MAX_MARKER_BYTES",
    "MAX_MATCHES",
    "MAX_TEXT_BYTES",
    "Match",
    "MatchIter",
    "Scanner",
    "extract",
    "extract_all",
    "extract_first",
    "finditer",
    "run_json",
]

_Buffer = Union[bytes, bytearray, memoryview]
# A str, a buffer, a binary file (read or readinto), or an iterable of buffers.
_Source = Union[str, _Buffer, IO[bytes], Iterable[_Buffer], Any]

@final
class Extraction:
    @property
    def matches(self) -> list[str]: ...
    @property
    def truncated(self) -> bool: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class Match:
    @property
    def text(self) -> str: ...
    @property
    def byte_start(self) -> int: ...
    @property
    def byte_end(self) -> int: ...
    @property
    def utf16_start(self) -> int: ...
    @property
    def utf16_end(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Scanner:
    def __new__(cls, start: str, end: str) -> "Scanner": ...
    def feed(self, chunk: _Buffer) -> list[Match]: ...
    def finish(self) -> list[Match]: ...
    @property
    def byte_position(self) -> int: ...

@final
class MatchIter:
    def __iter__(self) -> "MatchIter": ...
    def __next__(self) -> Match: ...

def extract(text: str, start: str, end: str, max_matches: int = 100) -> Extraction: ...
def run_json(request: Union[str, _Buffer]) -> str: ...
def finditer(source: _Source, start: str, end: str) -> MatchIter: ...

class _ArrowArray(Protocol):
    def __arrow_c_array__(self, requested_schema: Any = None) -> tuple[Any, Any]: ...

class _ArrowStream(Protocol):
    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any: ...

_Column = Union[_ArrowArray, _ArrowStream]
_OnUnclosed = Literal["raise", "null", "partial"]

def extract_all(
    column: _Column,
    start: str,
    end: str,
    max_matches: Optional[int] = None,
    on_unclosed: _OnUnclosed = "raise",
) -> Any: ...
def extract_first(column: _Column, start: str, end: str, on_unclosed: _OnUnclosed = "raise") -> Any: ...
