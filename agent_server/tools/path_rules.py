"""A path as rules judge it: as written, and where it really lands once every link on the way is followed.

The sandbox (`sandbox.py`) follows links, so a rule matched only against the written path can be walked around: a
committed link `docs/up -> ..` makes `docs/up/Makefile` (matched by an allow rule `docs/**`) write the workspace's
`Makefile`, and `notes.txt -> .env` reads a file a deny rule `.env*` keeps out. So every path rule is judged on both
forms: an allow must hold for the written **and** the resolved path, a deny holds if **either** matches
(docs/tools.md, "Permission policy"). A path that does not exist yet resolves through its existing parents, and a
link whose target does not exist yet resolves to that target: where a write would land.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .base import Policy

# No real path is longer (Linux's PATH_MAX); resolving a longer text costs time on the event loop for nothing.
MAX_PATH_CHARS = 4096


def workspace_path(workspace: Path, path: str) -> str:
    """A path argument as the workspace-relative, normalized form rules match against (the written form)."""
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            return candidate.relative_to(workspace).as_posix() or "."
        except ValueError:
            return posixpath.normpath(candidate.as_posix())
    return posixpath.normpath(path.replace("\\", "/"))


def resolved_path(workspace: Path, path: str) -> str | None:
    """Where `path` lands as the sandbox resolves it (relative to the workspace, every link followed), workspace-
    relative when inside it, absolute otherwise; None when it cannot be resolved (the sandbox refuses it too)."""
    text = path.strip() or "."  # as sandbox.resolve reads it
    if "\x00" in text or len(text) > MAX_PATH_CHARS:
        return None
    try:
        root = os.path.realpath(workspace)
        real = os.path.realpath(os.path.join(root, text))
    except (OSError, ValueError):
        return None
    if real == root:
        return "."
    if real.startswith(root.rstrip(os.sep) + os.sep):
        return Path(os.path.relpath(real, root)).as_posix()
    return Path(real).as_posix()


@dataclass(frozen=True)
class PathForms:
    """The two forms of one path argument; `resolved` None when it cannot be resolved."""

    written: str
    resolved: str | None

    @property
    def forms(self) -> tuple[str, ...]:
        """Each distinct form, the written one first."""
        if self.resolved is None or self.resolved == self.written:
            return (self.written,)
        return (self.written, self.resolved)

    @property
    def through_link(self) -> bool:
        return len(self.forms) > 1


def path_forms(workspace: Path, path: str) -> PathForms:
    return PathForms(workspace_path(workspace, path), resolved_path(workspace, path))


def both_forms(verdicts: Iterable[Policy]) -> Policy:
    """One verdict from the verdicts of each form: deny if either denies, allow only if both allow, else the
    other one (ask)."""
    seen = list(verdicts)
    if "deny" in seen:
        return "deny"
    if all(v == "allow" for v in seen):
        return "allow"
    return next(v for v in seen if v != "allow")
