"""One search of an existing index, synchronously, for `agent-server search`: loads only the database, the ranking
and numpy (no event loop, no chunker, scanner, process pool or watcher), so a cold CLI search answers fast."""

from __future__ import annotations

from pathlib import Path

from ..tools.search_query import shorten_query
from .db import IndexDB
from .entities import analyze_request
from .graph import SymbolGraph
from .query import ParsedQuery
from .search import FileHit, Hit, rank, rank_files
from .search_context import SearchContext, build_suffix_map
from .weights import Weights


def open_existing(db_path: Path) -> IndexDB | None:
    """The index at `db_path` if it exists and holds files; None when it must be built first."""
    if not db_path.is_file():
        return None
    db = IndexDB(db_path)
    if int(db.query("SELECT COUNT(*) FROM files")[0][0]) == 0:
        db.close()
        return None
    return db


def files_named(paths: dict[int, str], mentions: list[str]) -> dict[int, str]:
    """The files whose suffix-map keys can end in the last component of a mentioned path, in `paths` order.
    `search.match_path` only looks up keys ending in that component, and a file's keys end in its name, its name
    without the extension or (for `__init__.*`) its directory's name: so `build_suffix_map` of these files answers
    every lookup of these mentions exactly as the whole map would, at a fraction of the cost on a large tree."""
    names = set()
    for mention in mentions:
        parts = [p for p in mention.replace("\\", "/").split("/") if p and p != "."]
        if parts:
            names.add(parts[-1])
    if not names:
        return {}
    out: dict[int, str] = {}
    for fid, path in paths.items():
        head, _, base = path.rpartition("/")
        if (
            base in names
            or ("." in base and base.rsplit(".", 1)[0] in names)
            or (base.startswith("__init__.") and head and head.rpartition("/")[2] in names)
        ):
            out[fid] = path
    return out


def load_context(db: IndexDB, q: ParsedQuery) -> SearchContext:
    """The ranking's context with document frequencies of the query's own terms only."""
    paths = {int(r[0]): str(r[1]) for r in db.query("SELECT id, path FROM files")}
    # The suffix map only serves path and frame mentions: a one-shot search maps only the files they can name.
    by_suffix = build_suffix_map(files_named(paths, [*q.paths, *(f.path for f in q.frames)]))
    ctx = SearchContext(SymbolGraph.load_cached(db), paths, by_suffix)
    terms = list(dict.fromkeys([*q.fts_terms(), *q.title]))
    ctx.doc_freq, ctx.chunk_count = db.doc_freqs_of(list(db.stems(terms).values()))
    return ctx


def search_once(
    db: IndexDB, query: str, limit: int, prefix: str | None = None, files: bool = False
) -> list[Hit] | list[FileHit]:
    query, _note = shorten_query(query)  # the CLI says what was dropped
    q = analyze_request(query)
    ctx = load_context(db, q)
    if files:
        return rank_files(db, ctx, q, limit, prefix, Weights())
    return rank(db, ctx, q, limit, prefix, Weights())
