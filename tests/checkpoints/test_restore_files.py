"""Restoring files never follows a link out of the workspace, and restores a link as a link (issue 23), with and
without `dir_fd` (the path-based fallback is what runs where `dir_fd` is missing)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_server.checkpoints import restore_files
from agent_server.checkpoints.restore_files import UnsafePathError, put_file, remove_file


@pytest.fixture(params=[True, False], ids=["dir_fd", "paths"])
def world(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setattr(restore_files, "_HAS_DIR_FD", request.param and restore_files._HAS_DIR_FD)
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (outside / "f.txt").write_text("OUTSIDE\n")
    return ws, outside


def test_a_folder_swapped_for_a_link_is_made_a_folder_again(world: tuple[Path, Path]) -> None:
    ws, outside = world
    (ws / "d").symlink_to(outside)
    put_file(str(ws), "d/f.txt", b"inside\n")
    assert (outside / "f.txt").read_text() == "OUTSIDE\n"
    assert not (ws / "d").is_symlink() and (ws / "d" / "f.txt").read_bytes() == b"inside\n"


def test_a_file_swapped_for_a_link_gets_the_file_back_not_written_through(world: tuple[Path, Path]) -> None:
    ws, outside = world
    (ws / "g.txt").symlink_to(outside / "f.txt")
    put_file(str(ws), "g.txt", b"mine\n", "100755")
    assert (outside / "f.txt").read_text() == "OUTSIDE\n"
    assert not (ws / "g.txt").is_symlink() and (ws / "g.txt").read_bytes() == b"mine\n"


def test_a_link_is_restored_as_a_link_and_deleting_one_keeps_its_target(world: tuple[Path, Path]) -> None:
    ws, outside = world
    (ws / "l").write_text("plain\n")
    put_file(str(ws), "l", b"target.txt", "120000")
    assert (ws / "l").is_symlink() and os.readlink(ws / "l") == "target.txt"
    (ws / "out").symlink_to(outside / "f.txt")
    remove_file(str(ws), "out")
    assert not (ws / "out").exists() and (outside / "f.txt").read_text() == "OUTSIDE\n"
    (ws / "d").symlink_to(outside)
    remove_file(str(ws), "d/f.txt")  # through a link: nothing is deleted
    assert (outside / "f.txt").read_text() == "OUTSIDE\n"


@pytest.mark.parametrize("rel", ["../outside/f.txt", "/etc/passwd", "a/../../x", ""])
def test_paths_that_leave_the_workspace_are_refused(world: tuple[Path, Path], rel: str) -> None:
    ws, _ = world
    with pytest.raises(UnsafePathError):
        put_file(str(ws), rel, b"x")
