"""The extra context of a completion: chunks of files the user was just in, and the definitions of names near the
cursor, within a token budget and in an order that changes little between keystrokes.

The order is the point: llama.cpp reuses the evaluated prompt up to the first token that differs (`cache_prompt`,
and `n_cache_reuse` for shifted pieces), so the slow-changing part goes first. Chunks of recent files sit in a ring
(llama.vscode's idea): a new chunk goes at the end, the oldest leaves at the front, and a chunk is added only when
the user opens, saves or leaves a file, never per keystroke. Definitions change with the cursor, so they come after.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..context.tokens import estimate_text
from .types import Chunk

if TYPE_CHECKING:
    from ..index.db import IndexDB

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_DEFINED_HERE = re.compile(r"\b(?:def|class|function|fn|func|struct|interface|type|enum)\s+([A-Za-z_]\w*)")
_KEYWORDS = frozenset(
    "and as assert async await break case catch class const continue def del elif else enum except export extends "
    "false final finally for from func function global if impl import in interface let match new nil none nonlocal "
    "not null or pass private protected pub public raise return self static struct super switch this throw true try "
    "type typeof use var void while with yield print len str int float bool dict list set tuple none True False "
    "None string number boolean object".split()
)
NEAR_LINES = 12  # the lines above the cursor whose names are looked up
MAX_NAMES = 8


class DefinitionSource(Protocol):
    async def definitions(self, names: Sequence[str], exclude_path: str, max_lines: int) -> list[Chunk]: ...


@dataclass
class _Entry:
    chunk: Chunk
    signature: frozenset[str]


def _signature(text: str) -> frozenset[str]:
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


def _similarity(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


class RecentChunks:
    """The ring of chunks from recently opened, saved and left files, oldest first."""

    def __init__(self, capacity: int, chunk_lines: int) -> None:
        self.capacity = capacity
        self.chunk_lines = chunk_lines
        self._items: list[_Entry] = []

    def add(self, path: str, text: str, line: int | None = None) -> None:
        """The `chunk_lines` lines of `text` around `line` (the top of the file when None)."""
        if self.capacity <= 0:
            return
        lines = text.splitlines()
        start = 0 if line is None else max(0, min(line - self.chunk_lines // 2, len(lines) - self.chunk_lines))
        piece = lines[start : start + self.chunk_lines]
        if sum(1 for ln in piece if ln.strip()) < 3:
            return  # nearly empty: nothing a model could use
        chunk = Chunk(path, "\n".join(piece))
        signature = _signature(chunk.text)
        # The same place seen again (an edited version of it): the old copy goes, the new one joins at the end.
        self._items = [e for e in self._items if _similarity(e.signature, signature) < 0.9]
        self._items.append(_Entry(chunk, signature))
        del self._items[: max(0, len(self._items) - self.capacity)]

    def chunks(self) -> list[Chunk]:
        return [e.chunk for e in self._items]

    def __len__(self) -> int:
        return len(self._items)


def names_near(prefix: str, lines: int = NEAR_LINES, limit: int = MAX_NAMES) -> list[str]:
    """Identifiers in the last `lines` lines before the cursor, nearest first, minus keywords and names the same
    window defines (their definition is already in the prompt)."""
    window = "\n".join(prefix.splitlines()[-lines:])
    defined = set(_DEFINED_HERE.findall(prefix))
    seen: list[str] = []
    for name in reversed(_NAME.findall(window)):
        if name in seen or name in defined or name.lower() in _KEYWORDS:
            continue
        seen.append(name)
        if len(seen) >= limit:
            break
    return seen


class IndexDefinitions:
    """Definitions from the workspace index (its `defs` table), read on a side connection off the event loop."""

    def __init__(self, db: IndexDB) -> None:
        self.db = db

    async def definitions(self, names: Sequence[str], exclude_path: str, max_lines: int) -> list[Chunk]:
        if not names:
            return []
        sql = (
            "SELECT d.name, f.path, c.start_line, c.text FROM defs d JOIN chunks c ON c.id = d.chunk_id "
            "JOIN files f ON f.id = d.file_id WHERE d.name IN ({marks}) ORDER BY f.path, c.start_line"
        )
        wanted = list(names)

        def run() -> list[tuple[str, str, int, str]]:
            marks = ",".join("?" * len(wanted))
            return [tuple(r) for r in self.db.query_beside(sql.format(marks=marks), wanted)]  # type: ignore[misc]

        try:
            rows = await asyncio.to_thread(run)
        except Exception:  # an index being rebuilt or gone: completion goes on without it
            return []
        out: list[Chunk] = []
        taken: set[str] = set()
        for name, path, _start, text in rows:
            if name in taken or path == exclude_path:
                continue
            taken.add(name)
            out.append(Chunk(path, "\n".join(text.splitlines()[:max_lines])))
        return out


async def gather(
    ring: RecentChunks,
    defs: DefinitionSource | None,
    path: str,
    prefix: str,
    window: str,
    budget_tokens: int,
    max_lines: int,
) -> list[Chunk]:
    """The extra chunks for one request: ring chunks (oldest first) then definitions, within `budget_tokens`.

    Definitions get at most half the budget; the ring keeps its newest chunks when it does not fit, so its head stays
    the same until a chunk leaves the front. Chunks already in the local `window` are left out."""
    if budget_tokens <= 0:
        return []
    local = _signature(window)
    found: list[Chunk] = []
    if defs is not None:
        found = await defs.definitions(names_near(prefix), path, max_lines)
    chosen_defs: list[Chunk] = []
    spent = 0
    for chunk in found:
        cost = estimate_text(chunk.text) + 8
        if spent + cost > budget_tokens // 2 or _similarity(_signature(chunk.text), local) > 0.5:
            continue
        chosen_defs.append(chunk)
        spent += cost
    ring_part: list[Chunk] = []
    for chunk in reversed(ring.chunks()):
        if chunk.path == path and _similarity(_signature(chunk.text), local) > 0.5:
            continue
        cost = estimate_text(chunk.text) + 8
        if spent + cost > budget_tokens:
            break
        ring_part.append(chunk)
        spent += cost
    ring_part.reverse()
    return ring_part + chosen_defs
