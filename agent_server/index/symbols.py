"""Names in the index's symbol tables: where a name is defined (`defs`) and which files use it (`refs`).

What `find_definition` and `find_references` answer from when no language server can (the terminal, ACP, an
editor without one for the file): matched by name, so two functions of the same name are not told apart.
Both queries run on the calling thread's own read connection: callers run them off the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from .db import IndexDB

MAX_NAME = 200


@dataclass(frozen=True)
class NamedChunk:
    """The chunk that defines a name: its workspace-relative path and 1-based line range."""

    path: str
    start_line: int
    end_line: int


def definitions(db: IndexDB, name: str, limit: int) -> list[NamedChunk]:
    """The chunks that define `name` (its last dotted part), in path order."""
    short = name.rsplit(".", 1)[-1][:MAX_NAME]
    rows = db.query_beside(
        "SELECT f.path, c.start_line, c.end_line FROM defs d JOIN chunks c ON c.id = d.chunk_id "
        "JOIN files f ON f.id = d.file_id WHERE d.name = ? ORDER BY f.path, c.start_line LIMIT ?",
        (short, limit),
    )
    return [NamedChunk(str(p), int(s), int(e)) for p, s, e in rows]


def users(db: IndexDB, name: str, limit: int) -> list[str]:
    """The files whose identifiers include `name` (its last dotted part), in path order. The `refs` row is
    `name count name count …`, so the name with a space on each side is one whole entry (a count is a number)."""
    short = name.rsplit(".", 1)[-1][:MAX_NAME]
    if not short or " " in short:
        return []
    rows = db.query_beside(
        "SELECT f.path FROM refs r JOIN files f ON f.id = r.file_id "
        "WHERE instr(' ' || r.names || ' ', ?) > 0 ORDER BY f.path LIMIT ?",
        (f" {short} ", limit),
    )
    return [str(r[0]) for r in rows]
