"""What the tools need from the workspace index, as protocols: the index service lives above the tools (it uses
them for on-read indexing), so the tools see it only through these shapes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import Protocol, runtime_checkable


class SearchHit(Protocol):
    @property
    def path(self) -> str | PurePath: ...
    @property
    def start_line(self) -> int: ...
    @property
    def end_line(self) -> int: ...
    @property
    def score(self) -> float: ...
    @property
    def snippet(self) -> str: ...


class SearchFileHit(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def chunks(self) -> Sequence[SearchHit]: ...


class CodeIndex(Protocol):
    """What codebase_search needs from the index service (`ctx.services["index"]`)."""

    async def search(self, query: str, limit: int) -> Sequence[SearchHit]: ...
    async def search_files(self, query: str, limit: int) -> Sequence[SearchFileHit]: ...


class NamedChunk(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def start_line(self) -> int: ...
    @property
    def end_line(self) -> int: ...


@runtime_checkable
class SymbolIndex(Protocol):
    """What find_definition and find_references need from the index when no language server answers them."""

    async def definitions(self, name: str, limit: int) -> Sequence[NamedChunk]: ...
    async def users(self, name: str, limit: int) -> Sequence[str]: ...
