"""CheckpointService on real git repositories and plain directories (no server): snapshots, review, restore, pruning."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from agent_server.checkpoints import CheckpointLimits, CheckpointNotFoundError, CheckpointService
from agent_server.checkpoints.git_snapshots import private_git_dir
from agent_server.store import Store


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout


def private_refs(store: Store, ws: Path) -> str:
    """The refs of the snapshots' private repository (the user's repository never gets any)."""
    assert not git(ws, "for-each-ref", "refs/agent-server").strip()
    private = private_git_dir(Path(store.path).parent, Path(os.path.realpath(ws)))
    return git(ws, f"--git-dir={private}", "for-each-ref", "--format=%(refname)", "refs/agent-server")


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "agent.db")
    s.create_session("/", session_id="s1")
    s.create_session("/", session_id="s2")
    return s


async def test_repository_without_commits_and_untracked_files(tmp_path: Path, store: Store) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    (ws / "a.txt").write_text("one\n")
    service = CheckpointService(store)
    record = await service.before_change("s1", ws, 1, "first", [])
    assert record is not None and record.kind == "git"
    (ws / "a.txt").write_text("two\n")
    (ws / "b.bin").write_bytes(b"\0\1\2")
    await service.after_turn("s1", 1)
    changes = {Path(d.path).name: d for d in await service.changes(record.id)}
    assert changes["a.txt"].old_text == "one\n" and changes["a.txt"].new_text == "two\n"
    assert changes["b.bin"].binary and changes["b.bin"].status == "added"
    await service.restore(record.id, None)
    assert (ws / "a.txt").read_text() == "one\n" and not (ws / "b.bin").exists()
    assert git(ws, "status", "--porcelain") == "?? a.txt\n"  # still untracked: nothing was staged for the user


async def test_only_the_workspace_inside_a_bigger_repository_is_restored(tmp_path: Path, store: Store) -> None:
    top = tmp_path / "repo"
    ws = top / "pkg"
    ws.mkdir(parents=True)
    git(top, "init", "-q")
    (top / "outside.txt").write_text("outside\n")
    (ws / "inside.txt").write_text("inside\n")
    service = CheckpointService(store)
    record = await service.before_change("s1", ws, 1, "p", [])
    assert record is not None
    (top / "outside.txt").write_text("changed by the user meanwhile\n")
    (ws / "inside.txt").write_text("changed by the agent\n")
    await service.after_turn("s1", 1)
    assert [Path(d.path).name for d in await service.changes(record.id)] == ["inside.txt"]
    await service.restore(record.id, None)
    assert (ws / "inside.txt").read_text() == "inside\n"
    assert (top / "outside.txt").read_text() == "changed by the user meanwhile\n"


async def test_one_checkpoint_per_turn_and_copies_outside_git(tmp_path: Path, store: Store) -> None:
    ws = tmp_path / "plain"
    ws.mkdir()
    (ws / "x.py").write_text("x = 1\n")
    service = CheckpointService(store, CheckpointLimits(max_file_bytes=100))
    first = await service.before_change("s1", ws, 7, "p", [ws / "x.py"])
    (ws / "x.py").write_text("x = 2\n")
    again = await service.before_change("s1", ws, 7, "p", [ws / "x.py", ws / "new.py"])
    (ws / "x.py").write_text("x = 3\n")
    (ws / "new.py").write_text("new\n")
    (ws / "big.txt").write_text("b" * 1000)
    await service.before_change("s1", ws, 7, "p", [ws / "big.txt", tmp_path / "elsewhere.txt"])
    assert first is not None and again is not None and first.id == again.id and first.kind == "files"
    await service.after_turn("s1", 7)
    (ws / "x.py").write_text("x = 4\n")  # after the turn: review still shows what the turn did
    changes = {Path(d.path).name: d for d in await service.changes(first.id)}
    assert set(changes) == {"x.py", "new.py"}  # too big and outside the workspace are not copied
    assert (changes["x.py"].old_text, changes["x.py"].new_text) == ("x = 1\n", "x = 3\n")
    result = await service.restore(first.id, None)
    assert (ws / "x.py").read_text() == "x = 1\n" and not (ws / "new.py").exists()
    assert result.notes  # the user is told that command effects are not tracked outside git


async def test_pruning_by_count_and_age_drops_refs(tmp_path: Path, store: Store) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    service = CheckpointService(store, CheckpointLimits(max_per_session=2, max_age_days=1))
    ids = []
    for turn in range(1, 5):
        (ws / "f.txt").write_text(f"{turn}\n")
        record = await service.before_change("s1", ws, turn, f"turn {turn}", [])
        assert record is not None
        ids.append(record.id)
        await service.after_turn("s1", turn)
    assert [r.id for r in await service.list_checkpoints("s1")] == ids[-2:]
    refs = private_refs(store, ws)
    assert all(i not in refs for i in ids[:2]) and all(i in refs for i in ids[-2:])
    # Age: a checkpoint from long ago is pruned at the next turn's end, even if newer ones are kept.
    with store.db.write() as conn:
        conn.execute("UPDATE checkpoints SET created_at = ? WHERE id = ?", (time.time() - 3 * 86400, ids[3]))
    (ws / "f.txt").write_text("5\n")
    last = await service.before_change("s1", ws, 5, "turn 5", [])
    assert last is not None
    await service.after_turn("s1", 5)
    assert {r.id for r in await service.list_checkpoints("s1")} == {ids[2], last.id}


async def test_unknown_checkpoint(store: Store) -> None:
    with pytest.raises(CheckpointNotFoundError):
        await CheckpointService(store).changes("ckpt_missing")


async def test_a_corrupt_private_index_is_rebuilt(tmp_path: Path, store: Store) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    (ws / "a.txt").write_text("a\n")
    service = CheckpointService(store)
    assert await service.before_change("s1", ws, 1, "p", []) is not None
    private = private_git_dir(Path(store.path).parent, ws)
    (private / "index").write_text("not an index")
    (ws / "a.txt").write_text("b\n")
    record = await service.before_change("s1", ws, 2, "p", [])
    assert record is not None and record.before_ref


async def test_a_failing_snapshot_never_stops_the_turn(tmp_path: Path, store: Store) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    (tmp_path / "snapshots").write_text("a file where the private repositories' folder should be")
    assert await CheckpointService(store).before_change("s1", ws, 1, "p", []) is None
