"""Reciprocal-rank fusion (RRF) of the lexical ranking with the nearest-neighbour ranking of the chunk vectors.

RRF looks at ranks only: the lexical score (BM25 + definitions + paths + graph, unbounded) and a cosine (-1..1) never
have to be put on one scale, and a ranking that is confident about a few items cannot drown the other. An item's fused
score is the sum over the rankings that list it of `weight / (k + rank)`, rank counted from 1; `k` (60 in the RRF
paper, Cormack et al. 2009) flattens the head so that rank 1 against rank 3 matters little and agreement of both
rankings matters most.

Without a query vector, or with no stored vectors, or with vectors of another dimension, every function here returns
the lexical ranking untouched: the lexical path stands on its own.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import numpy.typing as npt

from .db import IndexDB

if TYPE_CHECKING:
    from .search_context import SearchContext

log = logging.getLogger(__name__)

RRF_K = 60
# The nearest-neighbour ranking's weight (search.Weights.vector); the lexical ranking counts 1. Half: on the dev split
# with all-MiniLM-L6-v2, 0.5 beat 1.0 (MRR 0.624 vs 0.608) and neither reached the lexical ranking alone (0.701).
VECTOR_WEIGHT = 0.5
VECTOR_LIMIT = 300  # nearest chunks that take part; past a few hundred a cosine rank says nothing useful

T = TypeVar("T", bound=Hashable)
Scored = tuple[float, int, int]  # (score, chunk id, file id), as search.score_chunks returns them


def rrf(rankings: Sequence[Sequence[T]], weights: Sequence[float] | None = None, k: int = RRF_K) -> dict[T, float]:
    """Fused score of every item of any ranking (each ranking best first). Items a ranking lacks get nothing from it;
    an item listed twice in one ranking counts at its first place."""
    if weights is not None and len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    scores: dict[T, float] = defaultdict(float)
    for i, ranking in enumerate(rankings):
        w = 1.0 if weights is None else weights[i]
        seen: set[T] = set()
        for pos, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] += w / (k + pos)
    return dict(scores)


def fused_order(
    rankings: Sequence[Sequence[T]], weights: Sequence[float] | None = None, k: int = RRF_K
) -> list[tuple[T, float]]:
    """Items by fused score, best first; ties keep the order of first appearance (the first ranking first)."""
    scores = rrf(rankings, weights, k)
    return sorted(scores.items(), key=lambda kv: -kv[1])  # stable: dict order is first appearance


def nearest_chunks(
    db: IndexDB,
    ctx: SearchContext,
    query_vector: npt.NDArray[np.float32],
    path_prefix: str | None = None,
    limit: int = VECTOR_LIMIT,
    demote: Callable[[str], float] | None = None,
) -> list[Scored]:
    """The `limit` chunks nearest to the query vector as (cosine, chunk id, file id), nearest first; empty when there
    are no vectors or their dimension is not the query's. `demote(path)` multiplies a chunk's cosine before ordering:
    search passes its path policy (tests, prose, example and vendored code below the implementation), since a bug
    report is often nearest to the tests and docs describing the behaviour (dev: the raw vector ranking put tests
    first in flask-5063 and vendored urllib3 above requests' own modules in requests-2148)."""
    if ctx.vectors is None or not len(ctx.vectors[0]):
        return []
    ids, mat = ctx.vectors
    if mat.shape[1] != query_vector.shape[0]:
        log.warning(
            "query vector has %d dimensions, stored chunk vectors %d: ranking without vectors",
            query_vector.shape[0],
            mat.shape[1],
        )
        return []
    sims = mat @ query_vector
    want = min(len(sims), limit * 4 if path_prefix or demote else limit)  # some drop out or down: look further
    top = np.argpartition(-sims, want - 1)[:want] if want < len(sims) else np.arange(len(sims))
    top = top[np.argsort(-sims[top], kind="stable")]
    cids = [int(ids[i]) for i in top]
    rows = db.query_in("SELECT id, file_id FROM chunks WHERE id IN ({marks})", cids)
    files = {int(cid): int(fid) for cid, fid in rows}
    out: list[Scored] = []
    for i, cid in zip(top, cids, strict=True):
        if sims[i] <= 0:
            break  # orthogonal or opposite: not near at all, whatever its rank
        fid = files.get(cid)
        path = ctx.paths.get(fid) if fid is not None else None
        if path is None or (path_prefix and not path.startswith(path_prefix)):
            continue  # a vector of a chunk deleted since the matrix loaded, or outside the requested folder
        out.append((float(sims[i]) * (demote(path) if demote else 1.0), cid, fid))  # type: ignore[arg-type]
        if len(out) >= limit and not demote:
            break
    if demote:
        out.sort(key=lambda t: -t[0])
    return out[:limit]


def fuse_chunks(lexical: list[Scored], nearest: list[Scored], vector_weight: float = VECTOR_WEIGHT) -> list[Scored]:
    """The chunk ranking: RRF of the lexical chunk order and the nearest-neighbour order; unchanged without vectors."""
    if not nearest:
        return lexical
    file_of = {cid: fid for _, cid, fid in lexical} | {cid: fid for _, cid, fid in nearest}
    order = fused_order([[c for _, c, _ in lexical], [c for _, c, _ in nearest]], [1.0, vector_weight], RRF_K)
    top = _best_possible(vector_weight)
    return [(score / top, cid, file_of[cid]) for cid, score in order]


def fuse_files(
    lexical_files: list[tuple[float, int]],
    lexical: list[Scored],
    nearest: list[Scored],
    vector_weight: float = VECTOR_WEIGHT,
) -> tuple[list[tuple[float, int]], dict[int, list[Scored]]]:
    """The file ranking: RRF of the lexical file order and the files in order of their nearest chunk; plus each
    file's chunks in fused chunk order (so a file's best chunks include what the vectors found)."""
    chunks = fuse_chunks(lexical, nearest, vector_weight)
    per_file: dict[int, list[Scored]] = defaultdict(list)
    for item in chunks:
        per_file[item[2]].append(item)
    if not nearest:
        return lexical_files, per_file
    vector_files = list(dict.fromkeys(fid for _, _, fid in nearest))
    order = fused_order([[fid for _, fid in lexical_files], vector_files], [1.0, vector_weight], RRF_K)
    top = _best_possible(vector_weight)
    return [(score / top, fid) for fid, score in order], per_file


def _best_possible(vector_weight: float) -> float:
    """The fused score of an item first in both rankings: fused scores are shown divided by it (1.0 = first in both),
    since tools and clients print scores and 0.0328 reads like noise."""
    return (1.0 + vector_weight) / (RRF_K + 1)
