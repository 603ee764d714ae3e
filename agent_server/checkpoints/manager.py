"""Checkpoints: the workspace as it was before each turn that changed files, for review and restore.

In a git work tree a checkpoint is a pair of snapshot commits under private refs (before the turn's first change,
and at the end of the turn), so it also covers what `run_command` created or deleted. Outside git it is a copy of
each file the agent's own tools touched, kept in SQLite; a command's effects are not tracked there (the user is told).

Restore writes the files back through the editor when it has them open (so its undo still works), else on disk,
and can also cut the conversation at the turn, so the model no longer sees what was undone.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from ..client_contract import AgentClient, FileChange, TextEdit
from ..config import CheckpointsConfig
from ..errors import AgentServerError, StateError
from ..store import Store
from .git_snapshots import SUBMODULE_MODE, GitError, GitSnapshots, find_repository, private_git_dir
from .records import CheckpointRecord, CheckpointTable, Origin
from .restore_files import UnsafePathError, is_plain_path, put_file, remove_file
from .undo_turn import Conflict, copy_triples, git_triples, plan

log = logging.getLogger(__name__)
NOT_TRACKED_NOTE = "outside git only the files the agent's own tools changed are kept; run_command effects are not"


class CheckpointNotFoundError(AgentServerError):
    def __init__(self, checkpoint_id: str) -> None:
        super().__init__(f"no checkpoint {checkpoint_id!r} (see agent/_checkpoints/list)")
        self.checkpoint_id = checkpoint_id


@dataclass(frozen=True)
class CheckpointLimits:
    max_per_session: int = 50
    max_age_days: float = 14.0
    max_file_bytes: int = 2_000_000  # outside git: larger files are not copied (and so cannot be restored)


@dataclass(frozen=True)
class FileDiff:
    """One file's change. Text is None for a side where the file does not exist; binary files carry no text."""

    path: str  # absolute
    status: str  # "added", "deleted", "modified"
    old_text: str | None
    new_text: str | None
    binary: bool = False
    created_later: bool = False  # a restore deletes it, but the turn did not create it: made after the turn


@dataclass
class RestoreResult:
    files: list[FileDiff]
    conversation_cut: bool
    notes: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)  # undo-only-this-turn: files left as they are
    undo_checkpoint_id: str | None = None  # the workspace kept just before this restore (restore it to undo)


class NothingToUndoError(StateError):
    """`undoRestore` without any restore to undo."""


def _text(data: bytes | None) -> tuple[str | None, bool]:
    if data is None:
        return None, False
    if b"\0" in data[:8192]:
        return None, True
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return None, True


def _diff(path: str, old: bytes | None, new: bytes | None, created_later: bool = False) -> FileDiff:
    old_text, old_bin = _text(old)
    new_text, new_bin = _text(new)
    status = "added" if old is None else "deleted" if new is None else "modified"
    return FileDiff(
        path=path,
        status=status,
        old_text=old_text,
        new_text=new_text,
        binary=old_bin or new_bin,
        created_later=created_later and new is None,
    )


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


@dataclass(frozen=True)
class _Found:
    """One file that differs: its content before the turn and at the end of it (or now), and git's modes."""

    path: str  # absolute, under the workspace's real path (links not followed)
    old: bytes | None
    new: bytes | None
    old_mode: str = "100644"
    new_mode: str = "100644"


class CheckpointService:
    """Takes, lists, shows and restores checkpoints. One per server; safe for several sessions."""

    def __init__(self, store: Store, limits: CheckpointLimits | None = None) -> None:
        self.table = CheckpointTable(store.db)
        self.store = store
        self.limits = limits or CheckpointLimits()
        self._repos: dict[Path, GitSnapshots | None] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    # --- taking ---------------------------------------------------------------------------------------

    def _repo(self, workspace: Path) -> GitSnapshots | None:
        if workspace not in self._repos:
            found = find_repository(workspace)
            real = Path(os.path.realpath(workspace))
            private = private_git_dir(Path(self.store.path).parent, real)
            self._repos[workspace] = GitSnapshots(real, private) if found else None
        return self._repos[workspace]

    def _lock(self, key: str) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())

    async def before_change(
        self, session_id: str, workspace: Path, turn_message_id: int, prompt: str, paths: list[Path]
    ) -> CheckpointRecord | None:
        """Called before a tool that may change files: the turn's first call takes the checkpoint; outside git,
        every call also copies the files it is about to touch. Never raises: a failed checkpoint must not stop
        the user's work (it is logged)."""
        try:
            async with self._lock(session_id):
                record = await asyncio.to_thread(self.table.for_turn, session_id, turn_message_id)
                if record is None:
                    record = await asyncio.to_thread(self._create, session_id, workspace, turn_message_id, prompt)
                if record.kind == "files":
                    await asyncio.to_thread(self._copy_before, record, workspace, paths)
                return record
        except Exception as exc:
            log.warning("checkpoint before a change failed: %s", exc)
            return None

    def _create(
        self, session_id: str, workspace: Path, turn_message_id: int, prompt: str, origin: Origin = "turn"
    ) -> CheckpointRecord:
        repo = self._repo(workspace)
        checkpoint_id = f"ckpt_{uuid.uuid4().hex[:12]}"
        before = None
        if repo is not None:
            before = repo.snapshot(f"{checkpoint_id}/before", f"agent-server checkpoint before: {prompt[:200]}")
        record = CheckpointRecord(
            id=checkpoint_id,
            session_id=session_id,
            workspace=str(workspace),
            turn_message_id=turn_message_id,
            prompt=prompt[:500],
            kind="git" if repo is not None else "files",
            before_ref=before,
            after_ref=None,
            created_at=time.time(),
            origin=origin,
        )
        self.table.add(record)
        return record

    def _copy_before(self, record: CheckpointRecord, workspace: Path, paths: list[Path]) -> None:
        for path in paths:
            path = path.resolve()
            if not _inside(path, workspace) or self.table.has_copy(record.id, str(path)):
                continue
            data = _read(path)
            if data is not None and len(data) > self.limits.max_file_bytes:
                log.warning("checkpoint: %s is larger than %d bytes; not copied", path, self.limits.max_file_bytes)
                continue
            self.table.add_copy(record.id, str(path), data)

    async def after_turn(self, session_id: str, turn_message_id: int) -> None:
        """At the end of a turn that took a checkpoint: record the result (for review), then prune old ones."""
        try:
            async with self._lock(session_id):
                record = await asyncio.to_thread(self.table.for_turn, session_id, turn_message_id)
                if record is None:
                    return
                await asyncio.to_thread(self._record_after, record)
                await asyncio.to_thread(self._prune, session_id)
        except Exception as exc:
            log.warning("checkpoint after the turn failed: %s", exc)

    def _record_after(self, record: CheckpointRecord) -> None:
        if record.kind == "git":
            repo = self._repo(Path(record.workspace))
            if repo is not None:
                after = repo.snapshot(f"{record.id}/after", f"agent-server checkpoint after: {record.prompt[:200]}")
                self.table.set_after(record.id, after)
            return
        for copy in self.table.copies(record.id):
            self.table.set_after_copy(record.id, copy.path, _read(Path(copy.path)))

    def _prune(self, session_id: str) -> None:
        records = self.table.select(session_id=session_id)
        cutoff = time.time() - self.limits.max_age_days * 86400
        doomed = [r for r in records if r.created_at < cutoff]
        keep = [r for r in records if r.created_at >= cutoff]
        if len(keep) > self.limits.max_per_session:
            doomed += keep[: len(keep) - self.limits.max_per_session]
        self._drop(doomed)

    def _drop(self, records: list[CheckpointRecord]) -> None:
        for record in records:
            repo = self._repo(Path(record.workspace)) if record.kind == "git" else None
            for side in ("before", "after"):
                if repo is not None:
                    try:
                        repo.delete_ref(f"{record.id}/{side}")
                    except GitError:
                        pass
        self.table.delete([r.id for r in records])

    # --- reading --------------------------------------------------------------------------------------

    async def list_checkpoints(
        self, session_id: str | None = None, workspace: str | None = None
    ) -> list[CheckpointRecord]:
        return await asyncio.to_thread(self.table.select, session_id, workspace)

    async def get(self, checkpoint_id: str) -> CheckpointRecord:
        record = await asyncio.to_thread(self.table.get, checkpoint_id)
        if record is None:
            raise CheckpointNotFoundError(checkpoint_id)
        return record

    async def changes(self, checkpoint_id: str) -> list[FileDiff]:
        """What the turn changed: its files before the first change → at the end of the turn (or now, while the
        turn still runs)."""
        record = await self.get(checkpoint_id)
        return [_diff(f.path, f.old, f.new) for f in await asyncio.to_thread(self._compare, record, True)]

    async def preview_restore(self, checkpoint_id: str, only_turn: bool = False) -> RestoreResult:
        """What a restore would do: the workspace now → as it was before the turn (`only_turn`: with only that
        turn's own changes reversed, and the files where that conflicts with a later change)."""
        record = await self.get(checkpoint_id)
        found, conflicts, later = await asyncio.to_thread(self._plan, record, only_turn)
        files = [_diff(f.path, f.new, f.old, f.path in later) for f in found]
        return RestoreResult(files=files, conversation_cut=False, conflicts=conflicts)

    def _plan(self, record: CheckpointRecord, only_turn: bool) -> tuple[list[_Found], list[Conflict], set[str]]:
        """The files to write back, the conflicts (undo only the turn), and the files made after the turn."""
        if not only_turn:
            found = self._compare(record, False)
            return found, [], self._created_later(record, found)
        if record.kind == "files":
            triples = copy_triples(self.table, record)
        else:
            repo = self._repo(Path(record.workspace))
            if repo is None or record.before_ref is None:
                raise GitError(f"the repository of {record.workspace} is gone")
            now_ref = repo.snapshot(f"{record.id}/now", "agent-server checkpoint: the work tree now")
            try:
                triples = git_triples(repo, record, now_ref)
            finally:
                repo.delete_ref(f"{record.id}/now")
        steps, conflicts = plan(triples)
        found = [_Found(s.path, s.target.data, s.now.data, s.target.mode, s.now.mode) for s in steps]
        return found, conflicts, set()

    def _created_later(self, record: CheckpointRecord, found: list[_Found]) -> set[str]:
        """Files a full restore deletes that did not exist at the end of the turn either: someone made them later."""
        absent_before = {f.path for f in found if f.old is None}
        if not absent_before:
            return set()
        if record.kind == "files":
            made = {c.path for c in self.table.copies(record.id) if c.after_recorded and c.after is None}
            return made & absent_before
        repo = self._repo(Path(record.workspace))
        if repo is None or record.before_ref is None or record.after_ref is None:
            return set()
        at_end = {str(repo.top / c.path) for c in repo.changes(record.before_ref, record.after_ref) if c.new_blob}
        return absent_before - at_end

    def _compare(self, record: CheckpointRecord, at_turn_end: bool) -> list[_Found]:
        """(path, content before the turn, content at the end of the turn (`at_turn_end`, once recorded) or now)
        for every file of the workspace that differs; None where the file does not exist."""
        workspace = Path(record.workspace)
        if record.kind == "files":
            found = []
            for copy in self.table.copies(record.id):
                after = copy.after if (at_turn_end and copy.after_recorded) else _read(Path(copy.path))
                if after != copy.before:
                    found.append(_Found(copy.path, copy.before, after))
            return found
        repo = self._repo(workspace)
        if repo is None or record.before_ref is None:
            raise GitError(f"the repository of {workspace} is gone")
        after_ref = record.after_ref if at_turn_end else None
        target = after_ref or repo.snapshot(f"{record.id}/now", "agent-server checkpoint: the work tree now")
        found = []
        for change in repo.changes(record.before_ref, target):
            if SUBMODULE_MODE in (change.old_mode, change.new_mode):
                continue  # a nested repository: its own history, not ours to restore
            # Not resolved: a path that is now a link must be judged (and restored) as the link itself.
            path = repo.top / change.path
            old = repo.blob(change.old_blob) if change.old_blob else None
            new = repo.blob(change.new_blob) if change.new_blob else None
            found.append(_Found(str(path), old, new, change.old_mode, change.new_mode))
        if after_ref is None:
            repo.delete_ref(f"{record.id}/now")
        return found

    # --- restoring ------------------------------------------------------------------------------------

    async def restore(self, checkpoint_id: str, client: AgentClient | None, only_turn: bool = False) -> RestoreResult:
        """Put every file the turn (and everything after it) changed back as it was before the turn; with
        `only_turn`, reverse only that turn's own changes (undo_turn.py). The workspace is kept first in a
        checkpoint of origin "restore", so the restore itself can be undone (files made later included)."""
        record = await self.get(checkpoint_id)
        async with self._lock(record.session_id):
            found, conflicts, later = await asyncio.to_thread(self._plan, record, only_turn)
            guard = None
            if found:
                try:
                    guard = await asyncio.to_thread(self._guard, record, found, only_turn)
                except Exception as exc:  # no way back: the restore does not happen
                    raise AgentServerError(f"nothing restored: the workspace could not be kept first ({exc})") from exc
            root = os.path.realpath(record.workspace)
            notes = [] if record.kind == "git" else [NOT_TRACKED_NOTE]
            # Links and files that replaced a folder go first, so the folder's files are then written into a folder.
            for item in sorted(found, key=lambda f: f.old is not None):
                try:
                    await _put_back(root, item, client)
                except (UnsafePathError, OSError) as exc:
                    notes.append(f"{item.path} was not restored: {exc}")
            if guard is not None:
                await asyncio.to_thread(self._record_after, guard)
        return RestoreResult(
            files=[_diff(f.path, f.new, f.old, f.path in later) for f in found],
            conversation_cut=False,
            notes=notes,
            conflicts=conflicts,
            undo_checkpoint_id=guard.id if guard is not None else None,
        )

    def _guard(self, record: CheckpointRecord, found: list[_Found], only_turn: bool) -> CheckpointRecord:
        what = "undoing only" if only_turn else "restoring to before"
        workspace = Path(record.workspace)
        guard = self._create(record.session_id, workspace, 0, f"({what}) {record.prompt}", origin="restore")
        if guard.kind == "files":
            self._copy_before(guard, workspace, [Path(f.path) for f in found])
        return guard

    async def last_restore(self, session_id: str | None, workspace: str | None) -> CheckpointRecord:
        """The newest restore's checkpoint: restoring only its own change undoes that restore."""
        records = await asyncio.to_thread(self.table.select, session_id, workspace)
        guards = [r for r in records if r.origin == "restore"]
        if not guards:
            raise NothingToUndoError("no restore to undo" + (f" in session {session_id}" if session_id else ""))
        return guards[-1]

    async def forget_from(self, session_id: str, turn_message_id: int) -> None:
        """The conversation was cut at a turn: its checkpoint and later ones belong to removed turns."""
        records = await asyncio.to_thread(self.table.select, session_id)
        await asyncio.to_thread(self._drop, [r for r in records if r.turn_message_id >= turn_message_id])


async def _put_back(root: str, item: _Found, client: AgentClient | None) -> None:
    """Put one file back as it was: through the editor when it has it open (its undo history keeps the restore),
    else on disk; never through a link (restore_files.py), and a link as a link."""
    from ..tools.editing import end_position

    path = Path(item.path)
    try:
        rel = os.path.relpath(item.path, root)
    except ValueError:
        rel = ".."
    if rel == ".." or rel.startswith("../") or os.path.isabs(rel):
        raise UnsafePathError(f"{item.path} is outside the workspace")
    data = item.old
    if data is None:
        await asyncio.to_thread(remove_file, root, rel)
        return
    text, _binary = _text(data)
    plain = item.old_mode != "120000" and await asyncio.to_thread(is_plain_path, root, rel)
    open_text = client.open_document_text(path) if client is not None and plain else None
    if client is not None and text is not None and open_text is not None and client.features.apply_edit:
        end_line, end_char = end_position(open_text)
        change = FileChange(path=path, edits=[TextEdit(0, 0, end_line, end_char, text)], base=open_text)
        if await client.apply_edit(f"Restore {path.name}", [change]):
            await client.save_documents([path])
            if await asyncio.to_thread(is_plain_path, root, rel) and _read(path) == data:
                return
    await asyncio.to_thread(put_file, root, rel, data, item.old_mode)


def from_settings(cfg: CheckpointsConfig, store: Store) -> CheckpointService | None:
    """The checkpoint service `checkpoints.*` asks for; None when checkpoints are off."""
    if not cfg.enabled:
        return None
    return CheckpointService(store, CheckpointLimits(cfg.max_per_session, cfg.max_age_days, cfg.max_file_bytes))
