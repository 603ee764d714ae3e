"""The values the store hands out: session rows, and the permission `Decision` (owned by tools.permissions)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from ..tools.permissions import Decision

__all__ = ["Decision", "SessionRecord"]


@dataclass(frozen=True)
class SessionRecord:
    id: str
    cwd: str
    title: str | None
    model: str | None
    created_at: float  # epoch seconds
    updated_at: float
    message_count: int = 0

    @property
    def updated_at_iso(self) -> str:
        """RFC 3339 in UTC, as ACP's `updatedAt` wants it."""
        return datetime.fromtimestamp(self.updated_at, UTC).isoformat().replace("+00:00", "Z")
