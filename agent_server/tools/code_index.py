"""What the tools need from the workspace index, as protocols: the index service lives above the tools (it uses
them for on-read indexing), so the tools see it only through these shapes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import Protocol


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
