"""The file graph (file A uses a name that file B defines) ranked with personalized PageRank."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import numpy.typing as npt

from .db import IndexDB
from .tokenize import decode_refs

MAX_DEFINERS = 8  # a name defined in more files than this (`get`, `run`, `__init__`) says nothing about who uses whom
DAMPING = 0.85
ITERATIONS = 12  # ranking only needs the near neighbourhood of the seeds; 0.85^12 of the mass is left
BLOB_VERSION = 3  # the saved graph's layout (graph_cache); another version is rebuilt


class SymbolGraph:
    """A weighted directed graph over file ids, loaded from the `defs` and `refs` tables."""

    def __init__(self, file_ids: list[int], src: npt.NDArray[np.int32], dst: npt.NDArray[np.int32],
                 norm_weight: npt.NDArray[np.float32], prior: dict[int, float] | None = None) -> None:  # fmt: skip
        """Edges sorted by target (`dst`), each weight already divided by its source's total out-weight."""
        self.file_ids = file_ids
        self.index = {fid: i for i, fid in enumerate(file_ids)}
        self.src = src
        self.dst = dst
        self.norm_weight = norm_weight
        self.dangling = np.bincount(src, minlength=len(file_ids)) == 0  # every edge weighs > 0
        self._dangling_idx = np.flatnonzero(self.dangling)
        # The propagation step as segment sums over the edges of each target (`reduceat` beats `bincount` here).
        self._starts = np.flatnonzero(np.r_[True, dst[1:] != dst[:-1]]) if len(src) else np.zeros(0, np.int64)
        self._targets = dst[self._starts]
        self._prior = prior

    @classmethod
    def from_edges(cls, file_ids: list[int], src: npt.NDArray[np.int64], dst: npt.NDArray[np.int64],
                   weight: npt.NDArray[np.float64]) -> SymbolGraph:  # fmt: skip
        """The graph of raw weighted edges (indices into `file_ids`), in any order."""
        out = np.bincount(src, weights=weight, minlength=len(file_ids)) if len(src) else np.zeros(len(file_ids))
        norm = weight / np.maximum(out[src], 1e-12) if len(src) else weight
        order = np.argsort(dst, kind="stable")
        return cls(file_ids, src[order].astype(np.int32), dst[order].astype(np.int32), norm[order].astype(np.float32))

    @classmethod
    def load(cls, db: IndexDB) -> SymbolGraph:
        file_ids = [int(r[0]) for r in db.query("SELECT id FROM files ORDER BY id")]
        definers: dict[str, set[int]] = defaultdict(set)
        for name, fid in db.query("SELECT DISTINCT name, file_id FROM defs"):
            definers[str(name)].add(int(fid))
        useful = {n: f for n, f in definers.items() if len(f) <= MAX_DEFINERS and len(n) >= 3}
        edges: dict[tuple[int, int], float] = defaultdict(float)
        for fid, names in db.query("SELECT file_id, names FROM refs"):
            src_id = int(fid)
            for name, count in decode_refs(str(names)):
                targets = useful.get(name)
                if not targets:
                    continue
                w = math.sqrt(count) / len(targets)
                if name.startswith("_"):
                    w *= 0.3
                for t in targets:
                    if t != src_id:
                        edges[(src_id, t)] += w
        index = {fid: i for i, fid in enumerate(file_ids)}
        pairs = [(index[a], index[b], w) for (a, b), w in edges.items() if a in index and b in index]
        src = np.array([p[0] for p in pairs], dtype=np.int64)
        dst = np.array([p[1] for p in pairs], dtype=np.int64)
        weight = np.array([p[2] for p in pairs], dtype=np.float64)
        return cls.from_edges(file_ids, src, dst, weight)

    def to_blob(self) -> bytes:
        """Version, file count, edge count (int64); file ids (int64); sources, targets (int32); normalized weights
        (float32); the global prior per file (float64). Exactly what `pagerank` reads, so a one-shot search
        neither rebuilds nor re-sorts the edges nor recomputes the prior."""
        ids = np.asarray(self.file_ids, dtype=np.int64)
        header = np.array([BLOB_VERSION, len(ids), len(self.src)], dtype=np.int64)
        prior = self.prior()
        ranks = np.array([prior.get(fid, 0.0) for fid in self.file_ids], dtype=np.float64)
        edges = (self.src.astype(np.int32), self.dst.astype(np.int32), self.norm_weight.astype(np.float32))
        return b"".join(a.tobytes() for a in (header, ids, *edges, ranks))

    @classmethod
    def from_blob(cls, data: bytes) -> SymbolGraph:
        """The graph `to_blob` wrote; ValueError for another version or a truncated blob."""
        if len(data) < 24:
            raise ValueError("graph blob too short")
        version, n, m = (int(x) for x in np.frombuffer(data, dtype=np.int64, count=3))
        if version != BLOB_VERSION or len(data) != 24 + 16 * n + 12 * m:
            raise ValueError("graph blob of another version or truncated")
        ids = np.frombuffer(data, dtype=np.int64, count=n, offset=24)
        off = 24 + 8 * n
        src = np.frombuffer(data, dtype=np.int32, count=m, offset=off)
        dst = np.frombuffer(data, dtype=np.int32, count=m, offset=off + 4 * m)
        weight = np.frombuffer(data, dtype=np.float32, count=m, offset=off + 8 * m)
        ranks = np.frombuffer(data, dtype=np.float64, count=n, offset=off + 12 * m)
        file_ids = ids.tolist()
        return cls(file_ids, src, dst, weight, dict(zip(file_ids, ranks.tolist(), strict=True)))

    @classmethod
    def load_cached(cls, db: IndexDB) -> SymbolGraph:
        """The graph from the database's cache when the files are unchanged since it was saved, else built (and
        saved for the next process)."""
        stamp = db.files_stamp()
        data = db.graph_blob(stamp)
        if data is not None:
            try:
                return cls.from_blob(data)
            except ValueError:
                pass  # a truncated or foreign blob: rebuild
        graph = cls.load(db)
        db.save_graph_blob(stamp, graph.to_blob())
        return graph

    def pagerank(
        self, personalization: dict[int, float] | None = None, among: set[int] | None = None
    ) -> dict[int, float]:
        """PageRank over files, teleporting to `personalization` (file id -> weight) or uniformly; reported for
        the files in `among` (default all)."""
        n = len(self.file_ids)
        if n == 0:
            return {}
        p = np.zeros(n, dtype=np.float32)
        if personalization:
            for fid, w in personalization.items():
                i = self.index.get(fid)
                if i is not None and w > 0:
                    p[i] += w
        if p.sum() <= 0:
            p[:] = 1.0
        p /= p.sum()
        r = p.copy()
        flow = np.zeros(n, dtype=np.float32)
        pushed = np.empty(len(self.src), dtype=np.float32)  # per call: searches run in several threads
        for _ in range(ITERATIONS):
            if len(self._starts):
                np.take(r, self.src, out=pushed)
                np.multiply(pushed, self.norm_weight, out=pushed)
                flow[self._targets] = np.add.reduceat(pushed, self._starts)
            r_next = (1 - DAMPING) * p + DAMPING * (flow + r[self._dangling_idx].sum() * p)
            if float(np.abs(r_next - r).sum()) < 1e-6:
                r = r_next
                break
            r = r_next
        ranks = r.tolist()  # one conversion, not one numpy scalar per file
        if among is None:
            return dict(zip(self.file_ids, ranks, strict=True))
        return {fid: ranks[i] for fid in among if (i := self.index.get(fid)) is not None}

    def prior(self) -> dict[int, float]:
        """Global PageRank, normalized so the most central file scores 1."""
        if self._prior is None:
            ranks = self.pagerank()
            top = max(ranks.values(), default=1.0) or 1.0
            self._prior = {fid: v / top for fid, v in ranks.items()}
        return self._prior
