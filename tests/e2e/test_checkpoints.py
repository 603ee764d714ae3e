"""Checkpoints end to end: the real server, real git, the fake LLM scripting edits and commands."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests import server_zygote
from tests.e2e.conftest import new_session
from tests.e2e.helpers import answer_permissions, install_apply_edit, prompt, sent_messages
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient


def git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    import os

    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **env})
    assert out.returncode == 0, out.stderr
    return out.stdout


def git_state(repo: Path) -> dict[str, str]:
    """Everything a checkpoint must leave alone: HEAD, the index, branches, tags, the stash, the status."""
    return {
        "head": git(repo, "rev-parse", "HEAD"),
        "symbolic": git(repo, "symbolic-ref", "HEAD"),
        "index": git(repo, "ls-files", "--stage"),
        "branches": git(repo, "for-each-ref", "refs/heads", "refs/tags", "refs/remotes"),
        "stash": git(repo, "stash", "list"),
    }


def make_repo(ws: Path) -> None:
    git(ws, "init", "-q", "-b", "main")
    (ws / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (ws / "old.txt").write_text("to be deleted by a command\n")
    (ws / ".gitignore").write_text("build/\n")
    git(ws, "add", ".")
    git(ws, "commit", "-q", "-m", "first")
    git(ws, "branch", "feature")
    (ws / "calc.py").write_text("def add(a, b):\n    return a + b  # stashed\n")
    git(ws, "stash", "-q")
    (ws / "staged.txt").write_text("staged by the user\n")
    git(ws, "add", "staged.txt")
    (ws / "build").mkdir()
    (ws / "build" / "out.bin").write_text("ignored\n")


async def checkpoints(client: LspClient, sid: str) -> list[dict[str, Any]]:
    result = await client.request("agent/_checkpoints/list", {"sessionId": sid})
    return list(result["checkpoints"])


async def test_git_restore_after_edits_and_a_command_leaves_git_alone(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    make_repo(workspace)
    before = git_state(workspace)
    answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "calc.py", "old_text": "a + b", "new_text": "a - b"}),
        Reply.tool_call("run_command", {"command": "rm old.txt && echo made > new.txt && echo x > build/junk"}),
        Reply.text("done"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "break calc and shuffle files") == "end_turn"
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    assert not (workspace / "old.txt").exists() and (workspace / "new.txt").exists()

    [ckpt] = await checkpoints(server, sid)
    assert ckpt["kind"] == "git" and ckpt["complete"] and ckpt["prompt"] == "break calc and shuffle files"
    shown = await server.request("agent/_checkpoints/show", {"checkpointId": ckpt["id"]})
    by_name = {Path(f["path"]).name: f for f in shown["files"]}
    assert set(by_name) == {"calc.py", "old.txt", "new.txt"}  # build/ is ignored, like git does
    assert by_name["calc.py"]["oldText"].endswith("a + b\n") and by_name["calc.py"]["newText"].endswith("a - b\n")
    assert by_name["old.txt"]["status"] == "deleted" and by_name["new.txt"]["status"] == "added"

    preview = await server.request("agent/_checkpoints/restore", {"checkpointId": ckpt["id"], "dryRun": True})
    assert {Path(f["path"]).name: f["status"] for f in preview["files"]} == {
        "calc.py": "modified",
        "old.txt": "added",
        "new.txt": "deleted",
    }
    assert (workspace / "calc.py").read_text().endswith("a - b\n"), "a dry run changes nothing"

    restored = await server.request("agent/_checkpoints/restore", {"checkpointId": ckpt["id"]})
    assert restored["restored"] and not restored["conversationCut"]
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (workspace / "old.txt").read_text() == "to be deleted by a command\n"
    assert not (workspace / "new.txt").exists()
    assert (workspace / "staged.txt").read_text() == "staged by the user\n"
    assert git_state(workspace) == before
    refs = git(workspace, "for-each-ref", "--format=%(refname)", "refs/agent-server")
    assert not refs.strip(), "the snapshots live in a private repository, not in the user's"


async def test_turn_without_changes_takes_no_checkpoint(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    make_repo(workspace)
    fake_llm.script(Reply.tool_call("read_file", {"path": "calc.py"}), Reply.text("it adds"))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "what does calc do?") == "end_turn"
    assert await checkpoints(server, sid) == []


async def test_non_git_workspace_restores_the_agents_own_edits(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "notes.md").write_text("original\n")
    answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "notes.md", "old_text": "original", "new_text": "changed"}),
        Reply.tool_call("write_file", {"path": "sub/new.md", "content": "brand new\n"}),
        Reply.text("done"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "edit notes") == "end_turn"
    [ckpt] = await checkpoints(server, sid)
    assert ckpt["kind"] == "files"
    shown = await server.request("agent/_checkpoints/show", {"checkpointId": ckpt["id"]})
    assert {Path(f["path"]).name: f["status"] for f in shown["files"]} == {"notes.md": "modified", "new.md": "added"}
    restored = await server.request("agent/_checkpoints/restore", {"checkpointId": ckpt["id"]})
    assert (workspace / "notes.md").read_text() == "original\n"
    assert not (workspace / "sub" / "new.md").exists()
    assert any("run_command" in note for note in restored["notes"])


async def test_restore_that_cuts_the_conversation(server: LspClient, workspace: Path, fake_llm: FakeLLMServer) -> None:
    make_repo(workspace)
    answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("write_file", {"path": "readme.md", "content": "kept\n"}),
        Reply.text("The readme is written."),
        Reply.tool_call("write_file", {"path": "secret-plan.md", "content": "step one\n"}),
        Reply.text("The plan is written."),
        Reply.text("Nothing else to do."),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "write the readme") == "end_turn"
    assert await prompt(server, sid, "WRITE THE PLAN") == "end_turn"
    first, second = await checkpoints(server, sid)
    assert (first["prompt"], second["prompt"]) == ("write the readme", "WRITE THE PLAN")
    result = await server.request("agent/_checkpoints/restore", {"checkpointId": second["id"], "conversation": True})
    assert result["conversationCut"]
    assert not (workspace / "secret-plan.md").exists()
    assert (workspace / "readme.md").read_text() == "kept\n"
    kept = await checkpoints(server, sid)
    assert [c["id"] for c in kept if c["origin"] == "turn"] == [first["id"]]  # the cut turn's went with it
    assert [c["id"] for c in kept if c["origin"] == "restore"] == [result["undoCheckpointId"]]  # files: undoable

    assert await prompt(server, sid, "and now?") == "end_turn"
    last = sent_messages(fake_llm, len(fake_llm.chat_requests()) - 1)
    sent = " ".join(str(m.get("content")) for m in last)
    assert "write the readme" in sent and "and now?" in sent
    assert "WRITE THE PLAN" not in sent and "secret-plan" not in sent and "The plan is written" not in sent
    # A replay shows the cut transcript too.
    await server.request("agent/session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
    texts = " ".join(
        u.get("content", {}).get("text", "") for u in server.updates(sid) if u["sessionUpdate"] == "user_message_chunk"
    )
    assert "WRITE THE PLAN" not in texts


async def test_unknown_checkpoint_and_bad_params(server: LspClient, workspace: Path) -> None:
    import pytest

    from tests.lsp_client import RpcError

    with pytest.raises(RpcError) as err:
        await server.request("agent/_checkpoints/show", {"checkpointId": "ckpt_nope"})
    assert err.value.code == -32002 and "ckpt_nope" in err.value.message
    with pytest.raises(RpcError) as err:
        await server.request("agent/_checkpoints/restore", {"checkpointId": 5})
    assert err.value.code == -32602


async def test_cli_lists_shows_and_restores(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    import json
    import os

    make_repo(workspace)
    answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("write_file", {"path": "calc.py", "content": "def add(a, b):\n    return 42\n"}),
        Reply.text("done"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "make add return 42") == "end_turn"
    env = {**os.environ, "AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db")}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return server_zygote.run(["checkpoints", *args], cwd=workspace, env=env, timeout=60)

    listed = cli("list", "--json")
    assert listed.returncode == 0, listed.stderr
    [ckpt] = json.loads(listed.stdout)
    shown = cli("show", ckpt["id"])
    assert "-    return a + b" in shown.stdout and "+    return 42" in shown.stdout
    refused = cli("restore", ckpt["id"])  # no terminal, no --yes: nothing happens
    assert refused.returncode == 1 and "--yes" in refused.stderr
    assert "return 42" in (workspace / "calc.py").read_text()
    done = cli("restore", ckpt["id"], "--yes")
    assert done.returncode == 0, done.stderr
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert cli("show", "ckpt_nothing").returncode == 1
