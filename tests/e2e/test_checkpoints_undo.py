"""Undo only one turn (a three-way reverse of that turn's own diff) and undo a restore: the real server, real git."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import new_session
from tests.e2e.helpers import answer_permissions, install_apply_edit, prompt
from tests.e2e.test_checkpoints import checkpoints, git
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient, RpcError

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


def repo(ws: Path) -> None:
    git(ws, "init", "-q", "-b", "main")
    (ws / "calc.py").write_text(CALC)
    (ws / "clash.txt").write_text("colour = red\n")
    git(ws, "add", ".")
    git(ws, "commit", "-q", "-m", "first")


def by_name(files: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {Path(f["path"]).name: f for f in files}


async def test_undo_only_one_turn_keeps_later_changes_and_reports_conflicts(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    repo(workspace)
    answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "calc.py", "old_text": "return a + b", "new_text": "return b + a"}),
        Reply.tool_call("edit_file", {"path": "clash.txt", "old_text": "red", "new_text": "blue"}),
        Reply.tool_call("write_file", {"path": "turn1.txt", "content": "made by turn one\n"}),
        Reply.text("turn one done"),
        Reply.tool_call("write_file", {"path": "turn2.txt", "content": "made by turn two\n"}),
        Reply.text("turn two done"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "turn one") == "end_turn"
    assert await prompt(server, sid, "turn two") == "end_turn"
    first, _second = await checkpoints(server, sid)
    # The user works on after both turns: another line of calc.py, the very line the turn changed in clash.txt.
    (workspace / "calc.py").write_text((workspace / "calc.py").read_text().replace("a - b", "a - b  # mine"))
    (workspace / "clash.txt").write_text("colour = green\n")
    (workspace / "mine.txt").write_text("the user's own file\n")

    preview = await server.request(
        "agent/_checkpoints/restore", {"checkpointId": first["id"], "onlyTurn": True, "dryRun": True}
    )
    assert not preview["restored"]
    assert {n: f["status"] for n, f in by_name(preview["files"]).items()} == {
        "calc.py": "modified",
        "turn1.txt": "deleted",
    }
    [conflict] = preview["conflicts"]
    assert Path(conflict["path"]).name == "clash.txt" and "same lines" in conflict["reason"]
    assert (workspace / "turn1.txt").exists(), "a preview changes nothing"

    done = await server.request("agent/_checkpoints/restore", {"checkpointId": first["id"], "onlyTurn": True})
    assert done["restored"] and [Path(c["path"]).name for c in done["conflicts"]] == ["clash.txt"]
    # The turn's own change is reversed, the user's later line stays; later turns and files are untouched.
    assert (workspace / "calc.py").read_text() == CALC.replace("a - b", "a - b  # mine")
    assert not (workspace / "turn1.txt").exists()
    assert (workspace / "turn2.txt").read_text() == "made by turn two\n"
    assert (workspace / "mine.txt").read_text() == "the user's own file\n"
    assert (workspace / "clash.txt").read_text() == "colour = green\n", "a conflicting file is left as it is"

    # The undo is itself undoable.
    assert done["undoCheckpointId"]
    back = await server.request("agent/_checkpoints/undoRestore", {"sessionId": sid})
    assert back["checkpoint"]["id"] == done["undoCheckpointId"] and back["checkpoint"]["origin"] == "restore"
    assert (workspace / "turn1.txt").read_text() == "made by turn one\n"
    assert (workspace / "calc.py").read_text() == CALC.replace("a + b", "b + a").replace("a - b", "a - b  # mine")


async def test_a_full_restore_shows_files_made_later_and_can_be_undone(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    repo(workspace)
    answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("write_file", {"path": "readme.md", "content": "by the agent\n"}),
        Reply.text("done"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "write the readme") == "end_turn"
    [ckpt] = await checkpoints(server, sid)
    assert ckpt["origin"] == "turn"
    (workspace / "later.txt").write_text("written by the user after the turn\n")

    preview = await server.request("agent/_checkpoints/restore", {"checkpointId": ckpt["id"], "dryRun": True})
    files = by_name(preview["files"])
    assert files["later.txt"]["status"] == "deleted" and files["later.txt"]["createdLater"] is True
    assert files["readme.md"]["status"] == "deleted" and files["readme.md"]["createdLater"] is False

    done = await server.request("agent/_checkpoints/restore", {"checkpointId": ckpt["id"]})
    assert not (workspace / "later.txt").exists() and not (workspace / "readme.md").exists()
    guard = done["undoCheckpointId"]
    assert guard in [c["id"] for c in await checkpoints(server, sid) if c["origin"] == "restore"]

    (workspace / "after-restore.txt").write_text("made after the restore\n")
    undo_preview = await server.request("agent/_checkpoints/undoRestore", {"sessionId": sid, "dryRun": True})
    assert set(by_name(undo_preview["files"])) == {"later.txt", "readme.md"}
    assert not (workspace / "later.txt").exists()
    await server.request("agent/_checkpoints/undoRestore", {"sessionId": sid})
    assert (workspace / "later.txt").read_text() == "written by the user after the turn\n"
    assert (workspace / "readme.md").read_text() == "by the agent\n"
    assert (workspace / "after-restore.txt").read_text() == "made after the restore\n"
    assert not git(workspace, "for-each-ref", "refs/agent-server").strip()


async def test_undo_only_a_turn_outside_git(server: LspClient, workspace: Path, fake_llm: FakeLLMServer) -> None:
    (workspace / "notes.md").write_text("one\ntwo\nthree\nfour\nfive\nsix\n")
    answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "notes.md", "old_text": "one", "new_text": "ONE"}),
        Reply.text("done"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "shout") == "end_turn"
    [ckpt] = await checkpoints(server, sid)
    assert ckpt["kind"] == "files"
    (workspace / "notes.md").write_text("ONE\ntwo\nthree\nfour\nfive\nSIX\n")
    await server.request("agent/_checkpoints/restore", {"checkpointId": ckpt["id"], "onlyTurn": True})
    assert (workspace / "notes.md").read_text() == "one\ntwo\nthree\nfour\nfive\nSIX\n"


async def test_undo_restore_without_a_restore_and_bad_combinations(server: LspClient, workspace: Path) -> None:
    sid = await new_session(server, workspace)
    with pytest.raises(RpcError) as err:
        await server.request("agent/_checkpoints/undoRestore", {"sessionId": sid})
    # Nothing to undo is the state of the session, not a server fault: "request failed", never an internal error.
    assert "no restore to undo" in err.value.message and err.value.code == -32803
    with pytest.raises(RpcError) as err:
        await server.request(
            "agent/_checkpoints/restore", {"checkpointId": "ckpt_x", "onlyTurn": True, "conversation": True}
        )
    assert err.value.code == -32602


async def test_loading_after_a_cut_sends_the_meter_and_a_title_that_names_no_removed_prompt(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    repo(workspace)
    answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("write_file", {"path": "plan.md", "content": "step one\n"}),
        Reply.text("The plan is written."),
        Reply.text("Fresh start."),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "SECRET PLAN first prompt") == "end_turn"
    [ckpt] = await checkpoints(server, sid)
    await server.request("agent/_checkpoints/restore", {"checkpointId": ckpt["id"], "conversation": True})
    listed = await server.request("agent/session/list", {"cwd": str(workspace)})
    [entry] = [s for s in listed["sessions"] if s["sessionId"] == sid]
    assert "SECRET PLAN" not in (entry.get("title") or ""), "the title named the removed prompt"

    assert await prompt(server, sid, "a new beginning") == "end_turn"
    before = len(server.updates(sid))
    await server.request("agent/session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
    loaded = server.updates(sid)[before:]
    [meter] = [u for u in loaded if u["sessionUpdate"] == "usage_update"]
    assert 0 < meter["used"] < meter["size"]
    [info] = [u for u in loaded if u["sessionUpdate"] == "session_info_update"]
    assert info["title"] == "a new beginning"
