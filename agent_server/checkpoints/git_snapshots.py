"""Snapshots of a git work tree as commits under private refs, without touching HEAD, the index or the stash.

Each snapshot stages the whole work tree into a private index file (`GIT_INDEX_FILE`), so `.gitignore` is
respected and files created or deleted by `run_command` are captured as well as the agent's own edits. The
private index lives in the git dir and keeps git's stat cache warm between snapshots, so only files whose
size or mtime changed are hashed again: that is what makes a snapshot of a 10,000-file repository fast. The
first snapshot seeds it from the user's own index for the same reason.

The commit is reachable only from `refs/agent-server/checkpoints/...`: never a branch, never pushed (a plain
`git push` sends branches and tags only), and dropping the ref lets git's normal gc reclaim it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

REF_PREFIX = "refs/agent-server/checkpoints"
# Repository config must not be able to run programs while we snapshot (fsmonitor, hooks) or to rewrite content.
_SAFE = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.autocrlf=false"]
_IDENTITY = {
    "GIT_AUTHOR_NAME": "agent-server",
    "GIT_AUTHOR_EMAIL": "agent-server@localhost",
    "GIT_COMMITTER_NAME": "agent-server",
    "GIT_COMMITTER_EMAIL": "agent-server@localhost",
}


class GitError(Exception):
    """A git command failed; the message carries git's own words."""


@dataclass(frozen=True)
class TreeChange:
    """One path that differs between two snapshots (paths relative to the repository top)."""

    path: str
    status: str  # "A" added, "D" deleted, "M" modified (type changes count as modified)
    old_blob: str | None
    new_blob: str | None


def find_repository(directory: Path) -> tuple[Path, Path] | None:
    """(work tree top, git dir) of the repository holding `directory`, or None outside git."""
    if shutil.which("git") is None:
        return None
    try:
        out = subprocess.run(
            ["git", *_SAFE, "rev-parse", "--show-toplevel", "--absolute-git-dir"],
            cwd=directory,
            capture_output=True,
            text=True,
            timeout=30,
            env=_env(),
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = out.stdout.splitlines()
    if out.returncode != 0 or len(lines) < 2 or not lines[0]:
        return None  # not a repository, or a bare one
    return Path(lines[0]), Path(lines[1])


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(_IDENTITY)
    env["GIT_TERMINAL_PROMPT"] = "0"
    if extra:
        env.update(extra)
    return env


class GitSnapshots:
    """Snapshots of one repository's work tree. Synchronous: callers run it in a thread."""

    def __init__(self, top: Path, git_dir: Path) -> None:
        self.top = top
        self.git_dir = git_dir
        self.index_file = git_dir / "agent-server" / "index"

    def _git(
        self, *args: str, input_bytes: bytes | None = None, private_index: bool = False, check: bool = True
    ) -> bytes:
        extra = {"GIT_INDEX_FILE": str(self.index_file)} if private_index else None
        proc = subprocess.run(
            ["git", *_SAFE, *args],
            cwd=self.top,
            input=input_bytes,
            capture_output=True,
            timeout=300,
            env=_env(extra),
        )
        if check and proc.returncode != 0:
            raise GitError(f"git {args[0]} failed: {proc.stderr.decode(errors='replace').strip()}")
        return proc.stdout

    def snapshot(self, ref: str, message: str) -> str:
        """Commit the work tree as it is now under `ref` (below REF_PREFIX); returns the commit id."""
        try:
            return self._snapshot(ref, message)
        except GitError:
            # A private index left corrupt (a killed process): it is only a cache, so start it afresh once.
            self.index_file.unlink(missing_ok=True)
            return self._snapshot(ref, message)

    def _snapshot(self, ref: str, message: str) -> str:
        self.index_file.parent.mkdir(parents=True, exist_ok=True)
        if not self.index_file.exists():
            real_index = self.git_dir / "index"
            if real_index.exists():
                shutil.copyfile(real_index, self.index_file)  # its stat cache spares hashing unchanged files
        # --ignore-errors: an unreadable file is left out of the snapshot instead of losing the whole snapshot.
        self._git("add", "--all", "--ignore-errors", "--", ".", private_index=True, check=False)
        tree = self._git("write-tree", private_index=True).decode().strip()
        commit = self._git("commit-tree", tree, "-m", message).decode().strip()
        self._git("update-ref", f"{REF_PREFIX}/{ref}", commit)
        return commit

    def changes(self, old: str, new: str) -> list[TreeChange]:
        """Paths that differ between two snapshot commits."""
        raw = self._git("diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", old, new)
        parts = raw.split(b"\0")
        result: list[TreeChange] = []
        for i in range(0, len(parts) - 1, 2):
            meta = parts[i].decode()
            if not meta.startswith(":"):
                continue
            _old_mode, _new_mode, old_blob, new_blob, status = meta[1:].split(" ")
            zero = "0" * len(old_blob)
            path = os.fsdecode(parts[i + 1])
            result.append(
                TreeChange(
                    path=path,
                    status="M" if status[0] == "T" else status[0],
                    old_blob=None if old_blob == zero else old_blob,
                    new_blob=None if new_blob == zero else new_blob,
                )
            )
        return result

    def blob(self, blob: str) -> bytes:
        return self._git("cat-file", "blob", blob)

    def delete_ref(self, ref: str) -> None:
        self._git("update-ref", "-d", f"{REF_PREFIX}/{ref}")

    def object_bytes(self) -> int:
        """Size of the repository's object store (for the disk-use figure)."""
        out = self._git("count-objects", "-v").decode()
        fields = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
        return (int(fields.get("size", 0)) + int(fields.get("size-pack", 0))) * 1024
