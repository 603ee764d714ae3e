"""Snapshots of a git workspace as commits in a private repository of ours, never in the user's repository.

Each snapshot stages the whole workspace into the private repository's index (`GIT_DIR` and `GIT_WORK_TREE` point
git at it), so `.gitignore` is respected and files created or deleted by `run_command` are captured as well as the
agent's own edits. The index keeps git's stat cache warm between snapshots, so only files whose size or mtime
changed are hashed again: that is what makes a snapshot of a 10,000-file repository fast.

Nothing the repository says can run a program or change the bytes, and nothing is written outside the workspace
and our own data folder:
- the private repository has its own config only (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`, no
  includes of the user's `.git/config`): no filter or process driver, no `core.fsmonitor`, no hooks
  (`core.hooksPath=/dev/null`), no `diff.external`, textconv or pager is ever defined;
- its `info/attributes`, which wins over every `.gitattributes`, unsets `filter`, `text`, `eol`, `ident` and
  `working-tree-encoding` for every path: the bytes are stored as they are on disk;
- the user's `.git` (a folder, or a `gitdir:` file pointing anywhere) is never read or written, so a `.git` file
  that points outside the workspace gets nothing written there.

The commits are reachable only from `refs/agent-server/checkpoints/...` of the private repository.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

REF_PREFIX = "refs/agent-server/checkpoints"
SUBMODULE_MODE = "160000"
# Belt and braces on top of the private config: settings that could run a program or rewrite content.
_SAFE = [
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.autocrlf=false",
    "-c", "core.safecrlf=false",
    "-c", "core.attributesFile=/dev/null",
    "-c", "core.symlinks=true",
    "-c", "core.pager=cat",
    "-c", "diff.external=",
    "-c", "protocol.allow=never",
]  # fmt: skip
# Highest-precedence attributes: no conversion of any kind between the disk and the object store.
NO_CONVERSION_ATTRIBUTES = "* -text !eol -ident -filter !working-tree-encoding -diff -merge\n"
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
    old_mode: str = "100644"  # git's modes: 100644/100755 file, 120000 symlink, 160000 nested repository
    new_mode: str = "100644"


def find_repository(directory: Path) -> Path | None:
    """The top of the git work tree holding `directory`, or None outside git (or without git installed).

    Found by looking for a `.git` entry, never by running git in the repository (its config could run programs).
    """
    if shutil.which("git") is None:
        return None
    current = Path(os.path.abspath(directory))
    for folder in (current, *current.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def private_git_dir(data_dir: Path, workspace: Path) -> Path:
    """Where the snapshots of `workspace` live: a bare repository of ours, one per workspace."""
    key = hashlib.sha256(os.fsencode(os.path.abspath(workspace))).hexdigest()[:24]
    return data_dir / "snapshots" / f"{key}.git"


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(_IDENTITY)
    env.update(
        {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_NO_REPLACE_OBJECTS": "1",
            "GIT_OPTIONAL_LOCKS": "0",
        }
    )
    if extra:
        env.update(extra)
    return env


class GitSnapshots:
    """Snapshots of one workspace, in a private repository. Synchronous: callers run it in a thread."""

    def __init__(self, top: Path, git_dir: Path) -> None:
        self.top = top  # the workspace: the private repository's work tree
        self.git_dir = git_dir  # the private bare repository (private_git_dir)
        self.index_file = git_dir / "index"

    def _git(self, *args: str, input_bytes: bytes | None = None, check: bool = True) -> bytes:
        extra = {"GIT_DIR": str(self.git_dir), "GIT_WORK_TREE": str(self.top), "GIT_INDEX_FILE": str(self.index_file)}
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

    def _ensure(self) -> None:
        """Create the private repository on first use (an empty template: not even sample hooks)."""
        if not (self.git_dir / "HEAD").exists():
            self.git_dir.parent.mkdir(parents=True, exist_ok=True)
            proc = subprocess.run(
                ["git", *_SAFE, "init", "-q", "--bare", "--template=", str(self.git_dir)],
                cwd=self.git_dir.parent,
                capture_output=True,
                timeout=60,
                env=_env(),
            )
            if proc.returncode != 0:
                raise GitError(f"git init failed: {proc.stderr.decode(errors='replace').strip()}")
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        attributes = info / "attributes"
        if not attributes.exists() or attributes.read_text() != NO_CONVERSION_ATTRIBUTES:
            attributes.write_text(NO_CONVERSION_ATTRIBUTES)

    def snapshot(self, ref: str, message: str) -> str:
        """Commit the work tree as it is now under `ref` (below REF_PREFIX); returns the commit id."""
        try:
            return self._snapshot(ref, message)
        except GitError:
            # A private index left corrupt (a killed process): it is only a cache, so start it afresh once.
            self.index_file.unlink(missing_ok=True)
            return self._snapshot(ref, message)

    def _snapshot(self, ref: str, message: str) -> str:
        self._ensure()
        # --ignore-errors: an unreadable file is left out of the snapshot instead of losing the whole snapshot.
        self._git("add", "--all", "--ignore-errors", "--", ".", check=False)
        tree = self._git("write-tree").decode().strip()
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
            old_mode, new_mode, old_blob, new_blob, status = meta[1:].split(" ")
            zero = "0" * len(old_blob)
            path = os.fsdecode(parts[i + 1])
            result.append(
                TreeChange(
                    path=path,
                    status="M" if status[0] == "T" else status[0],
                    old_blob=None if old_blob == zero else old_blob,
                    new_blob=None if new_blob == zero else new_blob,
                    old_mode=old_mode,
                    new_mode=new_mode,
                )
            )
        return result

    def blob(self, blob: str) -> bytes:
        return self._git("cat-file", "blob", blob)

    def delete_ref(self, ref: str) -> None:
        self._ensure()
        self._git("update-ref", "-d", f"{REF_PREFIX}/{ref}")

    def object_bytes(self) -> int:
        """Size of the repository's object store (for the disk-use figure)."""
        out = self._git("count-objects", "-v").decode()
        fields = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
        return (int(fields.get("size", 0)) + int(fields.get("size-pack", 0))) * 1024


def merge_three(ours: bytes, base: bytes, theirs: bytes) -> bytes | None:
    """`git merge-file`: `base`→`theirs` applied on top of `ours`; None on any conflict (or without git).

    Run in a folder of its own with the same private environment: no repository, no config of the user's applies.
    """
    import tempfile

    if shutil.which("git") is None:
        return None
    with tempfile.TemporaryDirectory(prefix="agent-merge-") as tmp:
        names = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            (Path(tmp) / name).write_bytes(data)
            names.append(name)
        proc = subprocess.run(
            ["git", *_SAFE, "merge-file", "-p", "-q", *names],
            cwd=tmp,
            capture_output=True,
            timeout=60,
            env=_env({"GIT_CEILING_DIRECTORIES": tmp, "GIT_DIR": os.devnull}),
        )
    return proc.stdout if proc.returncode == 0 else None
