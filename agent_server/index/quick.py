"""One search of an existing index, synchronously, for `agent-server search`: loads only the database, the ranking
and numpy (no event loop, no chunker, scanner, process pool or watcher), so a cold CLI search answers fast."""

from __future__ import annotations

from pathlib import Path

from .db import IndexDB
from .entities import analyze_request
from .graph import SymbolGraph
from .query import MAX_QUERY_CHARS, ParsedQuery, QueryTooLongError
from .search import FileHit, Hit, SearchContext, Weights, build_suffix_map, rank, rank_files


def open_existing(db_path: Path) -> IndexDB | None:
    """The index at `db_path` if it exists and holds files; None when it must be built first."""
    if not db_path.is_file():
        return None
    db = IndexDB(db_path)
    if int(db.query("SELECT COUNT(*) FROM files")[0][0]) == 0:
        db.close()
        return None
    return db


def load_context(db: IndexDB, q: ParsedQuery) -> SearchContext:
    """The ranking's context with document frequencies of the query's own terms only."""
    paths = {int(r[0]): str(r[1]) for r in db.query("SELECT id, path FROM files")}
    # The suffix map only serves path and frame mentions; a one-shot search without any skips building it.
    by_suffix = build_suffix_map(paths) if (q.paths or q.frames) else {}
    ctx = SearchContext(SymbolGraph.load_cached(db), paths, by_suffix)
    terms = list(dict.fromkeys([*q.fts_terms(), *q.title]))
    ctx.doc_freq, ctx.chunk_count = db.doc_freqs_of(list(db.stems(terms).values()))
    return ctx


def search_once(
    db: IndexDB, query: str, limit: int, prefix: str | None = None, files: bool = False
) -> list[Hit] | list[FileHit]:
    if len(query) > MAX_QUERY_CHARS:
        raise QueryTooLongError(len(query))
    q = analyze_request(query)
    ctx = load_context(db, q)
    if files:
        return rank_files(db, ctx, q, limit, prefix, Weights())
    return rank(db, ctx, q, limit, prefix, Weights())
