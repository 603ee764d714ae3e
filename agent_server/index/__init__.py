"""Workspace code index: scanning, chunking, FTS5 + symbol graph ranking; see docs/indexing.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .search import Hit
    from .workspace_index import IndexStats, IndexStatus, WorkspaceIndex

__all__ = ["Hit", "IndexStats", "IndexStatus", "WorkspaceIndex"]


def __getattr__(name: str) -> Any:
    # Loaded on first use: importing a light submodule (index.query for its limits) must not pull in numpy,
    # tree-sitter and the file watcher at server start.
    if name == "Hit":
        from .search import Hit

        return Hit
    if name in ("IndexStats", "IndexStatus", "WorkspaceIndex"):
        from . import workspace_index

        return getattr(workspace_index, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
