"""Hybrid ranking: FTS5 BM25 + symbol definitions + paths and stack frames + personalized PageRank + vectors."""

from __future__ import annotations

import math
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..tools.search_query import WORD
from .db import CHUNK_BM25, FILE_BM25, IndexDB
from .entities import extract_entities
from .fusion import fuse_files, nearest_chunks
from .path_policy import match_path, path_policy
from .query import ParsedQuery
from .search_context import SearchContext
from .tokenize import split_identifier
from .weights import Weights

FTS_LIMIT = 300
FILE_LIMIT = 100
MAX_TERMS = 24  # the rarest terms carry nearly all of BM25's signal; common ones only cost time
MAX_UNSEEN_TERMS = 16  # terms missing from the cached vocabulary (new since it loaded, or absent): cheap to include
MIN_COMMON_DF = 100
COMMON_SHARE = 0.5  # a term in more than half the chunks has ~zero BM25 IDF and the longest posting list
# FTS5 scores every chunk matching any term, so latency follows the summed posting lengths: stop adding (ever more
# common) terms past this many postings. The first MIN_TERMS always go in.
POSTING_BUDGET = 15_000
MIN_TERMS = 6
SNIPPET_LINES = 12
TITLE_LIMIT = 100  # chunks whose path or symbols match title words
PHRASE_LIMIT = 100  # chunks containing one phrase (tests often repeat it; they are demoted later)
PER_FILE = 3  # file results: each file comes with this many of its best chunks


@dataclass
class Hit:
    """One ranked chunk. `path` is workspace-relative with '/'; lines are 1-based inclusive."""

    path: str
    start_line: int
    end_line: int
    score: float
    symbol: str | None
    snippet: str
    kind: str


@dataclass
class FileHit:
    """One ranked file with its best chunks (already `Hit`s, best first)."""

    path: str
    score: float
    chunks: list[Hit]

    def to_wire(self) -> dict[str, object]:
        """The JSON shape of `agent/_index/search` with `files: true` (camelCase like its chunk results)."""
        return {
            "path": self.path,
            "score": round(self.score, 4),
            "chunks": [
                {
                    "startLine": h.start_line,
                    "endLine": h.end_line,
                    "score": round(h.score, 4),
                    "symbol": h.symbol,
                    "snippet": h.snippet,
                }
                for h in self.chunks
            ],
        }


def _common_limit(ctx: SearchContext) -> float:
    """Terms in more chunks than this are left out of a query (unless the index is tiny)."""
    return max(COMMON_SHARE * ctx.chunk_count, MIN_COMMON_DF)


def select_terms(db: IndexDB, ctx: SearchContext, terms: list[str], priority: set[str]) -> list[str]:
    """The rarest `MAX_TERMS` query terms by document frequency (priority terms first), plus a few unseen ones."""
    if not ctx.doc_freq:
        return terms[:MAX_TERMS]
    stems = db.stems(terms)
    seen: list[tuple[bool, int, int, str]] = []
    unseen: list[str] = []
    for pos, term in enumerate(terms):
        df = ctx.doc_freq.get(stems.get(term, term), 0)
        if df == 0:
            unseen.append(term)
        else:
            seen.append((term not in priority, df, pos, term))
    # Drop terms in most chunks, unless the index is tiny or nothing rarer is left.
    limit = _common_limit(ctx)
    kept = [x for x in seen if x[1] <= limit] or seen
    rare: list[tuple[int, int, str]] = []
    postings = 0
    for x in sorted(kept)[:MAX_TERMS]:
        if len(rare) >= MIN_TERMS and postings + x[1] > POSTING_BUDGET:
            continue  # a rarer term further down may still fit
        rare.append(x[1:])
        postings += x[1]
    return [t for _, _, t in sorted(rare, key=lambda x: x[1])] + unseen[:MAX_UNSEEN_TERMS]


FILE_TERMS = 64


FILE_POSTING_BUDGET = 30_000  # chunk postings (an upper bound of the file postings) the wide file query may touch


def _file_terms(db: IndexDB, ctx: SearchContext, q: ParsedQuery) -> list[str]:
    """Up to `FILE_TERMS` query terms that are not in most chunks, rarest first while their postings fit the budget."""
    terms = q.fts_terms()
    if not ctx.doc_freq:
        return terms[:FILE_TERMS]
    stems = db.stems(terms)
    limit = _common_limit(ctx)
    by_df = sorted((ctx.doc_freq.get(stems.get(t, t), 0), pos, t) for pos, t in enumerate(terms))
    out: list[tuple[int, str]] = []
    postings = 0
    for df, pos, t in by_df:
        if df > limit or len(out) >= FILE_TERMS:
            break
        if postings + df > FILE_POSTING_BUDGET:
            continue
        postings += df
        out.append((pos, t))
    return [t for _, t in sorted(out)]


def _title_terms(db: IndexDB, ctx: SearchContext, q: ParsedQuery) -> list[str]:
    """Title words not in most chunks (those only cost time: their posting lists are the longest)."""
    words = [t for t in dict.fromkeys(q.title) if t.isidentifier()][:12]
    if not ctx.doc_freq or not words:
        return words
    stems = db.stems(words)
    limit = _common_limit(ctx)
    return [t for t in words if ctx.doc_freq.get(stems.get(t, t), 0) <= limit]


def _fts_query(terms: list[str], repeat: dict[str, int] | None = None) -> str:
    """An OR of quoted terms. FTS5's bm25() sums over the query's phrases, so a term listed twice counts twice:
    `repeat` gives salient terms (the title's, the ones the request keeps coming back to) more weight."""
    reps = repeat or {}
    return " OR ".join(" OR ".join(['"' + t.replace('"', "") + '"'] * reps.get(t, 1)) for t in terms)


SALIENT_COUNT = 3  # a term the request uses this often is what it is about (or a pasted log's noise: one step only)


def salience(q: ParsedQuery) -> dict[str, int]:
    """How many times each query term should count: one, plus one for a title word, plus one for a term the
    request repeats."""
    counts: dict[str, int] = defaultdict(int)
    for word in WORD.findall(q.text):
        counts[word.lower()] += 1
        parts = split_identifier(word)
        if len(parts) > 1:  # `add_marker` also uses `marker`
            for part in parts:
                counts[part] += 1
    title = set(q.title)
    out: dict[str, int] = {}
    for t in q.fts_terms():
        out[t] = 1 + (t in title) + (counts.get(t, 0) >= SALIENT_COUNT)
    return out


def rank(
    db: IndexDB,
    ctx: SearchContext,
    q: ParsedQuery,
    limit: int,
    path_prefix: str | None = None,
    weights: Weights | None = None,
    query_vector: npt.NDArray[np.float32] | None = None,
) -> list[Hit]:
    """Best chunks for a parsed query, by file: the best chunk of every candidate file in file-rank order (the
    order `rank_files` gives), then every file's second best, and so on. A list of ten chunks names ten files: one
    file with many matching functions cannot fill it, and the files come in their better, file-level order."""
    files, per_file = ranked_files(db, ctx, q, path_prefix, weights or Weights(), query_vector)
    return _hits(db, ctx, interleave([per_file[fid] for _, fid in files], limit))


def interleave(columns: list[list[tuple[float, int, int]]], limit: int) -> list[tuple[float, int, int]]:
    """The first item of every column in order, then every second item, and so on, up to `limit` items."""
    out: list[tuple[float, int, int]] = []
    depth = 0
    while len(out) < limit:
        row = [col[depth] for col in columns if depth < len(col)]
        if not row:
            break
        out.extend(row[: limit - len(out)])
        depth += 1
    return out


def ranked_files(
    db: IndexDB,
    ctx: SearchContext,
    q: ParsedQuery,
    path_prefix: str | None,
    w: Weights,
    query_vector: npt.NDArray[np.float32] | None = None,
) -> tuple[list[tuple[float, int]], dict[int, list[tuple[float, int, int]]]]:
    """Every candidate file as (score, file id), best first, and each file's chunks, best first. A file scores its
    best chunk plus a share of its next best ones plus a bonus when it defines a name the query uses; with a query
    vector, files and chunks are reciprocal-rank fusions with the nearest chunks (fusion.py)."""
    scored, defines = score_chunks(db, ctx, q, path_prefix, w)
    per_file: dict[int, list[tuple[float, int, int]]] = defaultdict(list)
    for item in scored:
        per_file[item[2]].append(item)
    files: list[tuple[float, int]] = []
    for fid, items in per_file.items():
        best = items[0][0]
        s = best + w.aggregate * sum(x[0] for x in items[1:3]) + w.define_file * defines.get(fid, 0.0) * (best > 0)
        files.append((s, fid))
    files.sort(key=lambda t: (-t[0], ctx.paths.get(t[1], "")))
    if query_vector is not None:
        nearest = nearest_chunks(db, ctx, query_vector, path_prefix, demote=path_policy(ctx, q, w))
        files, per_file = fuse_files(files, scored, nearest, w.vector)
    return files, per_file


def rank_files(
    db: IndexDB,
    ctx: SearchContext,
    q: ParsedQuery,
    limit: int,
    path_prefix: str | None = None,
    weights: Weights | None = None,
    query_vector: npt.NDArray[np.float32] | None = None,
    chunks_per_file: int = PER_FILE,
) -> list[FileHit]:
    """Distinct files, ranked (see `ranked_files`), each with its best `chunks_per_file` chunks."""
    files, per_file = ranked_files(db, ctx, q, path_prefix, weights or Weights(), query_vector)
    files = files[:limit]
    chosen = [x for _, fid in files for x in per_file[fid][:chunks_per_file]]
    hits = _hits(db, ctx, chosen)
    by_path: dict[str, list[Hit]] = defaultdict(list)
    for h in hits:
        by_path[h.path].append(h)
    return [FileHit(ctx.paths[fid], round(s, 6), by_path[ctx.paths[fid]]) for s, fid in files]


def score_chunks(
    db: IndexDB,
    ctx: SearchContext,
    q: ParsedQuery,
    path_prefix: str | None,
    w: Weights,
) -> tuple[list[tuple[float, int, int]], dict[int, float]]:
    """Every candidate chunk as (score, chunk id, file id), best first; and file id -> how strongly the file
    defines the query's identifiers."""
    entities = extract_entities(q)
    terms = select_terms(db, ctx, q.fts_terms(), q.priority_terms())
    sal = salience(q) if w.salience else {}
    # The whole-file and title queries run on a reader of their own beside the chunk query (the two largest FTS5
    # queries of a search take about as long as each other; one core each).
    file_terms = list(dict.fromkeys([*terms, *(_file_terms(db, ctx, q) if w.wide_file_query else [])]))
    title_terms = _title_terms(db, ctx, q) if w.title else []
    side = _SIDE_QUERIES.submit(_side_queries, db, file_terms if terms and w.file_bm25 else [], title_terms, sal)
    chunk_file: dict[int, int] = {}
    bm25: dict[int, float] = {}
    try:
        if terms:
            rows = db.query(
                # Rank inside FTS5 first; joining before the LIMIT would look up every matching chunk.
                f"SELECT f.id, f.score, c.file_id FROM (SELECT rowid AS id, {CHUNK_BM25} AS score FROM chunks_fts "
                "WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?) f JOIN chunks c ON c.id = f.id",
                (_fts_query(terms, sal), FTS_LIMIT),
            )
            for cid, r, fid in rows:
                bm25[int(cid)] = -float(r)
                chunk_file[int(cid)] = int(fid)
    finally:
        file_rows, title_rows = side.result()  # never leave the side query running against a closing database
    top = max(bm25.values(), default=1.0) or 1.0
    bm25 = {c: v / top for c, v in bm25.items()}
    ftop = max((-float(r) for _, r in file_rows), default=1.0) or 1.0
    file_score = {int(fid): -float(r) / ftop for fid, r in file_rows}

    phrase: dict[int, float] = {}
    if w.phrase:
        for expr in entities.phrase_queries():
            for cid, fid in db.query(
                f"SELECT f.id, c.file_id FROM (SELECT rowid AS id, {CHUNK_BM25} AS score FROM chunks_fts "
                f"WHERE chunks_fts MATCH ? ORDER BY score LIMIT {PHRASE_LIMIT}) f JOIN chunks c ON c.id = f.id",
                ("body : " + expr,),
            ):
                phrase[int(cid)] = 1.0
                chunk_file[int(cid)] = int(fid)

    title: dict[int, float] = {}
    ttop = max((-float(r) for _, r, _ in title_rows), default=1.0) or 1.0
    for cid, r, fid in title_rows:
        title[int(cid)] = -float(r) / ttop
        chunk_file[int(cid)] = int(fid)

    definition: dict[int, float] = defaultdict(float)
    defines: dict[int, float] = defaultdict(float)
    strong = set(entities.strong_names) if w.strong_definition else set()
    if q.identifiers or strong:
        names = list(dict.fromkeys([*entities.strong_names, *q.identifiers]))[:200]
        marks = ",".join("?" * len(names))
        rows = db.query(f"SELECT name, file_id, chunk_id FROM defs WHERE name IN ({marks})", names)
        definers: dict[str, set[int]] = defaultdict(set)
        for name, fid, _ in rows:
            definers[str(name)].add(int(fid))
        for name, fid, cid in rows:
            n = len(definers[str(name)])
            specific = 1.5 if len(split_identifier(str(name))) > 1 else 1.0
            v = specific / math.sqrt(n) + (w.strong_definition if str(name) in strong else 0.0)
            definition[int(cid)] = max(definition[int(cid)], v)
            defines[int(fid)] = max(defines[int(fid)], v)
            chunk_file[int(cid)] = int(fid)

    path_hit: dict[int, float] = defaultdict(float)
    for mention in q.paths:
        found = match_path(ctx, mention)
        for fid in found:
            path_hit[fid] = max(path_hit[fid], 1.0 / len(found))
    frame_file: dict[int, float] = defaultdict(float)
    frame_lines: dict[int, list[int]] = defaultdict(list)
    for pos, frame in enumerate(q.frames):
        found = match_path(ctx, frame.path)
        for fid in found:
            # Deeper frames (printed later) are closer to the failure.
            frame_file[fid] = max(frame_file[fid], (0.6 + 0.4 * (pos + 1) / len(q.frames)) / len(found))
            if frame.line is not None:
                frame_lines[fid].append(frame.line)
    frame_chunks: dict[int, float] = {}
    for fid, lines in frame_lines.items():
        for cid, start, end in db.query("SELECT id, start_line, end_line FROM chunks WHERE file_id = ?", (fid,)):
            if any(int(start) <= ln <= int(end) for ln in lines):
                frame_chunks[int(cid)] = 1.0
                chunk_file[int(cid)] = fid

    # Files only reached through a path mention get represented by their best-matching or first chunk.
    files_with_chunks = set(chunk_file.values())
    chunkless = (set(path_hit) | set(frame_file) | set(file_score)) - files_with_chunks
    first_chunk = db.first_chunks(chunkless)
    for fid in chunkless:
        if fid in first_chunk:
            chunk_file[first_chunk[fid]] = fid

    file_bm25: dict[int, list[float]] = defaultdict(list)
    for cid, v in bm25.items():
        file_bm25[chunk_file[cid]].append(v)
    seeds: dict[int, float] = defaultdict(float)
    for fid, vals in file_bm25.items():
        seeds[fid] += max(vals)
    for cid, v in definition.items():
        seeds[chunk_file[cid]] += v
    for fid, v in path_hit.items():
        seeds[fid] += 2 * v
    for fid, v in file_score.items():
        seeds[fid] += w.file_bm25 * v
    for fid, v in frame_file.items():
        seeds[fid] += 2 * v
    strongest = dict(sorted(seeds.items(), key=lambda kv: -kv[1])[:30])
    ppr = ctx.graph.pagerank(strongest, among=set(chunk_file.values())) if strongest and w.graph else {}
    ppr_top = max((ppr.get(f, 0.0) for f in set(chunk_file.values())), default=0.0) or 1.0
    prior = ctx.graph.prior() if w.prior else {}

    spread: dict[int, float] = {}
    for fid, vals in file_bm25.items():
        vals.sort(reverse=True)
        spread[fid] = sum(vals[1:4])

    demote = path_policy(ctx, q, w)
    scored: list[tuple[float, int, int]] = []
    for cid, fid in chunk_file.items():
        path = ctx.paths.get(fid)
        if path is None or (path_prefix and not path.startswith(path_prefix)):
            continue
        s = (
            w.bm25 * bm25.get(cid, 0.0)
            + w.definition * definition.get(cid, 0.0)
            + w.path * path_hit.get(fid, 0.0)
            + w.frame_file * frame_file.get(fid, 0.0)
            + w.frame_line * frame_chunks.get(cid, 0.0)
            + w.graph * ppr.get(fid, 0.0) / ppr_top
            + w.prior * prior.get(fid, 0.0)
            + w.file_spread * spread.get(fid, 0.0)
            + w.file_bm25 * file_score.get(fid, 0.0)
            + w.phrase * phrase.get(cid, 0.0)
            + w.title * title.get(cid, 0.0)
            + (w.open_file if path in ctx.open_files else 0.0)
            + (w.edited_file * ctx.edited_files.get(path, 0.0))
        )
        scored.append((s * demote(path), cid, fid))
    scored.sort(key=lambda t: -t[0])
    return scored, defines


_SIDE_QUERIES = ThreadPoolExecutor(max_workers=2, thread_name_prefix="index-side-query")
Rows = list[tuple[Any, ...]]


def _side_queries(db: IndexDB, file_terms: list[str], title_terms: list[str], sal: dict[str, int]) -> tuple[Rows, Rows]:
    """The whole-file BM25 (top `FILE_LIMIT` files) and the title words against chunk paths and symbol names (top
    `TITLE_LIMIT` chunks), on this thread's own reader."""
    file_rows: Rows = []
    title_rows: Rows = []
    if file_terms:
        # Whole files are far fewer rows than chunks: the file level can afford more of the request's words.
        file_rows = db.query_beside(
            f"SELECT rowid, {FILE_BM25} AS score FROM files_fts WHERE files_fts MATCH ? ORDER BY score LIMIT ?",
            (_fts_query(file_terms, sal), FILE_LIMIT),
        )
    if title_terms:
        title_rows = db.query_beside(
            f"SELECT f.id, f.score, c.file_id FROM (SELECT rowid AS id, {CHUNK_BM25} AS score FROM chunks_fts "
            "WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?) f JOIN chunks c ON c.id = f.id",
            ("{path symbols} : (" + _fts_query(title_terms) + ")", TITLE_LIMIT),
        )
    return file_rows, title_rows


def _hits(db: IndexDB, ctx: SearchContext, best: list[tuple[float, int, int]]) -> list[Hit]:
    if not best:
        return []
    marks = ",".join("?" * len(best))
    info = {
        int(r[0]): r
        for r in db.query(
            f"SELECT id, start_line, end_line, kind, symbol, text FROM chunks WHERE id IN ({marks})",
            [cid for _, cid, _ in best],
        )
    }
    hits: list[Hit] = []
    for s, cid, fid in best:
        _, start, end, kind, symbol, text = info[cid]
        snippet = "\n".join(str(text).splitlines()[:SNIPPET_LINES])
        hits.append(Hit(ctx.paths[fid], int(start), int(end), round(s, 6), symbol and str(symbol), snippet, str(kind)))
    return hits
