"""The user's review of a proposed edit (issue 29): the permission answer may carry the text the user edited in the
editor's diff and the hunks they rejected; the real server writes exactly that and tells the model. Also: an
unsaved buffer of the user is never saved by an agent edit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.acp_schema import validate
from tests.e2e.conftest import new_session
from tests.e2e.helpers import PERMISSION, install_apply_edit, prompt, sent_messages, tool_results
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient, RpcError

BASE = "def total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
PROPOSED = "def total(xs):\n    return sum(xs) + 0\n\n\ndef mean(xs):\n    return total(xs) / max(1, len(xs))\n"


def answer_with_review(client: LspClient, review: Any) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []

    def handler(params: dict[str, Any]) -> dict[str, Any]:
        validate("RequestPermissionRequest", params)
        seen.append(params)
        answer = {"outcome": {"outcome": "selected", "optionId": "allow_once"}, "_meta": {"review": review}}
        validate("RequestPermissionResponse", answer)
        return answer

    client.handlers[PERMISSION] = handler
    return seen


async def run_write(server: LspClient, workspace: Path, fake_llm: FakeLLMServer, turn: int = 0) -> str:
    fake_llm.script(Reply.tool_call("write_file", {"path": "calc.py", "content": PROPOSED}), Reply.text("done"))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "guard the mean") == "end_turn"
    return tool_results(sent_messages(fake_llm, 2 * turn + 1))[-1]


async def test_the_request_offers_the_hunks_and_the_users_edited_text_is_what_gets_written(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    target = workspace / "calc.py"
    target.write_text(BASE)
    edited = PROPOSED.replace("max(1, len(xs))", "(len(xs) or 1)")
    seen = answer_with_review(server, {"content": edited})
    install_apply_edit(server)
    told = await run_write(server, workspace, fake_llm)
    assert seen[0]["toolCall"]["_meta"]["review"]["hunks"] == [
        {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1},
        {"oldStart": 5, "oldLines": 1, "newStart": 5, "newLines": 1},
    ]
    assert target.read_text() == edited
    assert "The user edited your proposal before allowing it" in told, told
    assert "-    return total(xs) / max(1, len(xs))\n+    return total(xs) / (len(xs) or 1)" in told, told


async def test_rejected_hunks_are_not_written_and_the_model_is_told_which(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    target = workspace / "calc.py"
    target.write_text(BASE)
    answer_with_review(server, {"rejectedHunks": [0]})
    install_apply_edit(server)
    told = await run_write(server, workspace, fake_llm)
    assert target.read_text() == BASE.replace("/ len(xs)", "/ max(1, len(xs))")
    assert "The user rejected 1 of the 2 hunks of your change (hunk 1)" in told, told
    assert "+    return sum(xs) + 0" in told and "edited your proposal" not in told, told


async def test_an_edit_file_call_takes_the_edited_text_and_keeps_the_path(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    target = workspace / "calc.py"
    target.write_text(BASE)
    edited = BASE.replace("sum(xs)", "sum(xs, start=0)")
    answer_with_review(server, {"content": edited, "rejectedHunks": []})
    install_apply_edit(server)
    edit = {"path": "calc.py", "old_text": "sum(xs)", "new_text": "sum(xs) + 0"}
    fake_llm.script(Reply.tool_call("edit_file", edit), Reply.text("done"))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "edit") == "end_turn"
    assert target.read_text() == edited
    assert sorted(p.name for p in workspace.iterdir() if p.is_file()) == ["calc.py"]
    told = tool_results(sent_messages(fake_llm, 1))[-1]
    assert "-    return sum(xs) + 0\n+    return sum(xs, start=0)" in told, told


async def test_a_malformed_review_writes_nothing_and_says_why(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    target = workspace / "calc.py"
    target.write_text(BASE)
    answer_with_review(server, {"rejectedHunks": [7], "path": "/etc/passwd"})
    install_apply_edit(server)
    told = await run_write(server, workspace, fake_llm)
    assert target.read_text() == BASE
    assert told.startswith("Error: the editor's reviewed version of this change was not usable"), told
    answer_with_review(server, {"rejectedHunks": [7]})
    told = await run_write(server, workspace, fake_llm, turn=1)
    assert target.read_text() == BASE and "no hunk 7" in told, told


async def test_an_agent_edit_does_not_save_the_users_unsaved_changes(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    target = workspace / "calc.py"
    target.write_text(BASE)
    unsaved = BASE + "\n# my own note, not saved yet\n"
    uri = target.resolve().as_uri()
    server.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": unsaved}},
    )
    applied: list[dict[str, Any]] = []
    saves: list[dict[str, Any]] = []
    server.handlers["workspace/applyEdit"] = lambda params: applied.append(params) or {"applied": True}
    server.handlers["agent/_saveDocuments"] = lambda params: saves.append(params) or {"saved": params.get("uris")}
    answer_with_review(server, None)
    edit = {"path": "calc.py", "old_text": "sum(xs)", "new_text": "sum(xs) + 0"}
    fake_llm.script(Reply.tool_call("edit_file", edit), Reply.text("done"))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "edit") == "end_turn"
    assert len(applied) == 1, "the change did not reach the editor's buffer"
    assert saves == [] and target.read_text() == BASE, "the user's unsaved text was saved"
    told = tool_results(sent_messages(fake_llm, 1))[-1]
    assert "has unsaved changes of the user in the editor, so it was not saved" in told, told


async def test_merge_block_through_the_server_and_bad_params_get_a_clear_error(server: LspClient) -> None:
    text = "import os\n\n\ndef total(xs):\n    return sum(xs)\n"
    merged = await server.request("agent/_mergeBlock", {"text": text, "block": "def total(xs):\n    return 0"})
    assert merged == {"text": "import os\n\n\ndef total(xs):\n    return 0\n"}
    assert await server.request("agent/_mergeBlock", {"text": text, "block": "def other():\n    pass"}) == {
        "text": None
    }
    with pytest.raises(RpcError) as err:
        await server.request("agent/_mergeBlock", {"text": text, "block": 3})
    assert err.value.code == -32602 and "block" in err.value.message
