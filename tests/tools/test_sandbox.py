from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_server.errors import SandboxError
from agent_server.tools.sandbox import relative, resolve


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "secret.txt").write_text("top secret")
    return secret


@pytest.mark.parametrize(
    "path",
    ["../x", "../../etc/passwd", "/etc/passwd", "src/../../x", "a\x00b", "bad\udc80name", "/"],
)
def test_escapes_are_refused_with_a_clear_message(workspace: Path, path: str) -> None:
    with pytest.raises(SandboxError) as info:
        resolve([workspace], path)
    message = str(info.value)
    assert "outside the workspace" in message or "NUL" in message or "surrogate" in message


def test_symlink_pointing_outside_is_refused(workspace: Path, outside: Path) -> None:
    (workspace / "link").symlink_to(outside)
    (workspace / "file_link").symlink_to(outside / "secret.txt")
    for path in ("link/secret.txt", "file_link", "link"):
        with pytest.raises(SandboxError, match="outside the workspace"):
            resolve([workspace], path)


def test_paths_inside_resolve_to_absolute_paths(workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("x = 1\n")
    root = Path(os.path.realpath(workspace))
    assert resolve([workspace], "src/app.py", must_exist=True) == root / "src" / "app.py"
    assert resolve([workspace], "./src/../src/app.py") == root / "src" / "app.py"
    assert resolve([workspace], str(workspace / "src" / "app.py")) == root / "src" / "app.py"
    assert resolve([workspace], "") == root
    assert resolve([workspace], "new/file.txt") == root / "new" / "file.txt"  # need not exist


def test_internal_symlink_is_followed(workspace: Path) -> None:
    (workspace / "real.txt").write_text("hi")
    (workspace / "alias.txt").symlink_to(workspace / "real.txt")
    assert resolve([workspace], "alias.txt").name == "real.txt"


def test_missing_file_when_it_must_exist(workspace: Path) -> None:
    with pytest.raises(SandboxError, match=r"no such file or directory: 'nope\.txt'"):
        resolve([workspace], "nope.txt", must_exist=True)


def test_second_root_reachable_by_absolute_path(workspace: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "b.txt").write_text("b")
    assert resolve([workspace, other], str(other / "b.txt"), must_exist=True).name == "b.txt"
    assert relative([workspace, other], other / "b.txt") == "b.txt"


def test_relative_is_slash_separated(workspace: Path) -> None:
    (workspace / "a" / "b").mkdir(parents=True)
    assert relative([workspace], workspace / "a" / "b" / "c.py") == "a/b/c.py"
    assert relative([workspace], workspace) == "."


def test_no_roots_is_a_clear_error() -> None:
    with pytest.raises(SandboxError, match="no workspace folder"):
        resolve([], "a.txt")
