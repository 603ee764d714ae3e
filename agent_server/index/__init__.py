"""Workspace code index: scanning, chunking, FTS5 + symbol graph ranking; see docs/indexing.md."""

from .search import Hit
from .workspace_index import IndexStats, IndexStatus, WorkspaceIndex

__all__ = ["Hit", "IndexStats", "IndexStatus", "WorkspaceIndex"]
