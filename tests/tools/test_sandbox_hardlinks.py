"""Hard links: a workspace file that shares its inode with a file outside is never read, written or searched."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_server.errors import SandboxError
from agent_server.index.scanner import Scanner
from agent_server.tools.sandbox import resolve
from agent_server.tools.walk import iter_files


@pytest.fixture
def linked(workspace: Path, tmp_path: Path) -> Path:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-TOKEN\n")
    (workspace / "notes.txt").hardlink_to(secret)
    (workspace / "plain.txt").write_text("hello\n")
    return secret


def test_resolve_refuses_a_hard_linked_file_and_says_why(workspace: Path, linked: Path) -> None:
    for path in ("notes.txt", "./sub/../notes.txt", str(workspace / "notes.txt")):
        with pytest.raises(SandboxError, match="hard link") as info:
            resolve([workspace], path)
        assert "outside the workspace" in str(info.value)
    assert resolve([workspace], "plain.txt", must_exist=True).name == "plain.txt"


def test_a_symlink_to_a_hard_linked_file_is_refused_too(workspace: Path, linked: Path) -> None:
    (workspace / "alias.txt").symlink_to(workspace / "notes.txt")
    with pytest.raises(SandboxError, match="hard link"):
        resolve([workspace], "alias.txt")


def test_walks_skip_hard_linked_files(workspace: Path, linked: Path) -> None:
    names = [p.name for p in iter_files(workspace, workspace)]
    assert names == ["plain.txt"]
    assert [f.path for f in Scanner(workspace).walk()] == ["plain.txt"]


def test_a_file_whose_other_link_was_removed_is_usable_again(workspace: Path, linked: Path) -> None:
    linked.unlink()
    assert resolve([workspace], "notes.txt", must_exist=True).read_text() == "TOP-SECRET-TOKEN\n"
