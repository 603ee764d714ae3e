"""Checkpoints: every turn's file changes can be reviewed and undone (git private refs, or SQLite copies)."""

from .manager import (
    CheckpointLimits,
    CheckpointNotFoundError,
    CheckpointService,
    FileDiff,
    RestoreResult,
    from_settings,
)
from .records import CheckpointRecord

__all__ = [
    "CheckpointLimits",
    "CheckpointNotFoundError",
    "CheckpointRecord",
    "CheckpointService",
    "FileDiff",
    "RestoreResult",
    "from_settings",
]
