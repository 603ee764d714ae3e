"""Undo only one turn: reverse that turn's own changes as a three-way merge against what the files hold now.

"Back to this point" puts every file back as it was before the turn, so files changed or created later (by later
turns, commands or the user) are lost. Undoing only the turn takes each file the turn changed, with three versions:
before the turn, at its end, and now. If the file still holds what the turn left, it goes back to before; if it
changed since, the turn's change is reversed on top of the later one when the two touch different lines (git's
merge-file); otherwise it is a conflict: reported, and the file left as it is. Nothing else is touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .git_snapshots import SUBMODULE_MODE, GitSnapshots, merge_three
from .records import CheckpointRecord, CheckpointTable

SYMLINK_MODE = "120000"


@dataclass(frozen=True)
class Conflict:
    """A file the undo left alone: the turn's change could not be reversed without losing a later one."""

    path: str  # absolute
    reason: str


@dataclass(frozen=True)
class Version:
    """One file at one moment: its bytes (None = did not exist) and git's mode."""

    data: bytes | None
    mode: str = "100644"

    def same(self, other: Version) -> bool:
        return self.data == other.data and (self.data is None or self.mode == other.mode)


@dataclass(frozen=True)
class Triple:
    path: str  # absolute, under the workspace's real path (links not followed)
    before: Version
    after: Version  # at the end of the turn
    now: Version


@dataclass(frozen=True)
class Step:
    """What the undo writes: `target` in place of `now`."""

    path: str
    target: Version
    now: Version


def _is_text(v: Version) -> bool:
    return v.data is not None and v.mode not in (SYMLINK_MODE, SUBMODULE_MODE) and b"\0" not in v.data[:8192]


def plan(triples: list[Triple]) -> tuple[list[Step], list[Conflict]]:
    steps: list[Step] = []
    conflicts: list[Conflict] = []
    for t in triples:
        if t.now.same(t.before):
            continue  # already as before the turn
        if t.now.same(t.after):
            steps.append(Step(t.path, t.before, t.now))
            continue
        if _is_text(t.before) and _is_text(t.after) and _is_text(t.now):
            assert t.now.data is not None and t.after.data is not None and t.before.data is not None
            merged = merge_three(t.now.data, t.after.data, t.before.data)
            if merged is not None:
                if merged != t.now.data:
                    steps.append(Step(t.path, Version(merged, t.now.mode), t.now))
                continue
            reason = "changed since the turn on the same lines the turn changed"
        elif t.now.data is None:
            reason = "deleted since the turn"
        elif t.after.data is None:
            reason = "created again since the turn deleted it"
        else:
            reason = "changed since the turn (not a text file, so the changes cannot be combined)"
        conflicts.append(Conflict(t.path, reason))
    return steps, conflicts


def git_triples(repo: GitSnapshots, record: CheckpointRecord, now_ref: str) -> list[Triple]:
    """The turn's files from its snapshots: before, at its end (now, if the turn never ended), and now."""
    assert record.before_ref is not None
    after_ref = record.after_ref or now_ref
    since = {c.path: c for c in repo.changes(after_ref, now_ref)}
    triples = []
    for change in repo.changes(record.before_ref, after_ref):
        if SUBMODULE_MODE in (change.old_mode, change.new_mode):
            continue
        before = Version(repo.blob(change.old_blob) if change.old_blob else None, change.old_mode)
        after = Version(repo.blob(change.new_blob) if change.new_blob else None, change.new_mode)
        later = since.get(change.path)
        now = after if later is None else Version(repo.blob(later.new_blob) if later.new_blob else None, later.new_mode)
        triples.append(Triple(str(repo.top / change.path), before, after, now))
    return triples


def copy_triples(table: CheckpointTable, record: CheckpointRecord) -> list[Triple]:
    """Outside git: the copies of the files the agent's tools touched, and each file now."""
    triples = []
    for copy in table.copies(record.id):
        path = Path(copy.path)
        try:
            now = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        except OSError:
            now = None
        after = copy.after if copy.after_recorded else now
        triples.append(Triple(copy.path, Version(copy.before), Version(after), Version(now)))
    return triples
