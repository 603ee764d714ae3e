"""The per-generation caches a search reads (graph, path lookups, vectors, document frequencies), built once per
index write and shared by every query until the next one."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .graph import SymbolGraph


@dataclass
class SearchContext:
    """Per-generation caches the ranking needs: the graph, path lookups and the vector matrix."""

    graph: SymbolGraph
    paths: dict[int, str]
    by_suffix: dict[str, list[int]]
    vectors: tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]] | None = None
    open_files: set[str] = field(default_factory=set)
    edited_files: dict[str, float] = field(default_factory=dict)
    doc_freq: dict[str, int] = field(default_factory=dict)  # stemmed term -> chunks containing it (may lag writes)
    chunk_count: int = 0


def build_suffix_map(paths: dict[int, str]) -> dict[str, list[int]]:
    """Every trailing run of path components (with and without extension) -> file ids."""
    out: dict[str, list[int]] = defaultdict(list)
    for fid, path in paths.items():
        parts = path.split("/")
        stem = path.rsplit(".", 1)[0] if "." in parts[-1] else path
        stem_parts = stem.split("/")
        keys = {"/".join(parts[i:]) for i in range(len(parts))} | {"/".join(stem_parts[i:]) for i in range(len(parts))}
        if parts[-1].startswith("__init__."):
            pkg = "/".join(parts[:-1])
            keys |= {"/".join(parts[i:-1]) for i in range(len(parts) - 1)} if pkg else set()
        for key in keys:
            out[key].append(fid)
    return out
