"""The permission request shows the change before the choice: the real server, real files, the fake LLM."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.acp_schema import validate
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import (
    PERMISSION,
    answer_permissions,
    final_tool_updates,
    install_apply_edit,
    prompt,
    sent_messages,
    tool_results,
    validate_updates,
)
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient

SOURCE = "def total(xs):\n    return sum(xs)\n\nprint(total([1, 2]))\n"


def diffs(tool_call: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in tool_call.get("content") or [] if c["type"] == "diff"]


def answer_after_looking(client: LspClient, target: Path, option: str) -> list[tuple[dict[str, Any], str]]:
    """Answer with `option`, recording each request with the file's text on disk at the moment it was asked."""
    seen: list[tuple[dict[str, Any], str]] = []

    def handler(params: dict[str, Any]) -> dict[str, Any]:
        validate("RequestPermissionRequest", params)
        seen.append((params, target.read_text()))
        return {"outcome": {"outcome": "selected", "optionId": option}}

    client.handlers[PERMISSION] = handler
    return seen


async def test_edit_request_carries_the_diff_and_the_file_waits_for_the_answer(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    target = workspace / "calc.py"
    target.write_text(SOURCE)
    seen = answer_after_looking(server, target, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "calc.py", "old_text": "sum(xs)", "new_text": "sum(xs) + 1"}),
        Reply.text("done"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "add one") == "end_turn"

    assert len(seen) == 1
    request, on_disk_when_asked = seen[0]
    assert on_disk_when_asked == SOURCE, "the file changed before the user answered"
    after = SOURCE.replace("sum(xs)", "sum(xs) + 1")
    assert diffs(request["toolCall"]) == [
        {"type": "diff", "path": str(target.resolve()), "oldText": SOURCE, "newText": after}
    ]
    assert request["toolCall"]["locations"] == [{"path": str(target.resolve()), "line": 1}]
    assert target.read_text() == after
    validate_updates(server)


async def test_the_diff_starts_from_the_unsaved_buffer(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    target = workspace / "calc.py"
    target.write_text(SOURCE)
    unsaved = SOURCE.replace("print(total([1, 2]))", "print(total([3, 4]))")
    server.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": target.resolve().as_uri(), "languageId": "python", "version": 1, "text": unsaved}},
    )
    seen = answer_after_looking(server, target, "reject_once")
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "calc.py", "old_text": "[3, 4]", "new_text": "[5, 6]"}),
        Reply.text("ok"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "change the numbers") == "end_turn"
    [(request, _)] = seen
    [diff] = diffs(request["toolCall"])
    assert diff["oldText"] == unsaved
    assert diff["newText"] == unsaved.replace("[3, 4]", "[5, 6]")


async def test_a_new_file_has_no_old_text(server: LspClient, workspace: Path, fake_llm: FakeLLMServer) -> None:
    asked = answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(Reply.tool_call("write_file", {"path": "docs/new.md", "content": "# New\n"}), Reply.text("ok"))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "write it") == "end_turn"
    [diff] = diffs(asked[0]["toolCall"])
    assert diff["path"] == str((workspace / "docs" / "new.md").resolve())
    assert diff.get("oldText") is None and diff["newText"] == "# New\n"
    assert asked[0]["toolCall"]["rawInput"] == {"path": "docs/new.md", "content": "# New\n"}
    assert (workspace / "docs" / "new.md").read_text() == "# New\n"


async def test_an_edit_that_cannot_apply_fails_without_asking(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    target = workspace / "calc.py"
    target.write_text(SOURCE)
    asked = answer_permissions(server, "allow_once")
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "calc.py", "old_text": "product(xs)", "new_text": "x"}),
        Reply.text("I will read it first."),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "edit") == "end_turn"
    assert asked == [], "the user was asked about an edit that cannot apply"
    assert "old_text was not found in calc.py" in tool_results(sent_messages(fake_llm, 1))[-1]
    done = final_tool_updates(server, sid)[-1]
    assert done["status"] == "failed" and "_meta" not in done
    assert target.read_text() == SOURCE


async def test_a_command_request_shows_the_command_and_its_folder(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "sub").mkdir()
    asked = answer_permissions(server, "reject_once")
    fake_llm.script(Reply.tool_call("run_command", {"command": "rm -rf build && make", "cwd": "sub"}), Reply.text("ok"))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "build") == "end_turn"
    call = asked[0]["toolCall"]
    folder = str((workspace / "sub").resolve())
    assert call["rawInput"] == {"command": "rm -rf build && make", "cwd": folder}
    texts = [c["content"]["text"] for c in call["content"] if c["type"] == "content"]
    assert texts and "rm -rf build && make" in texts[0] and folder in texts[0]
    assert call["locations"] == [{"path": folder}]


async def test_a_rejection_is_reported_as_rejected_live_and_in_the_replay(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    target = workspace / "calc.py"
    target.write_text(SOURCE)
    first = await start_server(workspace, llm_options(fake_llm))
    seen = answer_after_looking(first, target, "reject_once")
    edits = install_apply_edit(first)
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "calc.py", "old_text": "sum(xs)", "new_text": "0"}), Reply.text("ok")
    )
    sid = await new_session(first, workspace)
    assert await prompt(first, sid, "break it") == "end_turn"
    assert len(seen) == 1 and diffs(seen[0][0]["toolCall"])
    assert target.read_text() == SOURCE and edits == []
    live = final_tool_updates(first, sid)[-1]
    assert live["status"] == "failed"
    assert live["_meta"]["rejected"]["by"] == "user" and live["_meta"]["rejected"]["reason"]
    validate_updates(first)
    await first.close()

    second = await start_server(workspace, llm_options(fake_llm))
    await second.request("agent/session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
    replayed = final_tool_updates(second, sid)[-1]
    assert replayed["_meta"] == live["_meta"]


async def test_a_policy_denial_is_reported_as_rejected_by_policy(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    client = await start_server(workspace, {**llm_options(fake_llm), "tools": {"policy": {"write_file": "deny"}}})
    asked = answer_permissions(client, "allow_once")
    fake_llm.script(Reply.tool_call("write_file", {"path": "x.txt", "content": "x"}), Reply.text("ok"))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "write") == "end_turn"
    assert asked == [] and not (workspace / "x.txt").exists()
    assert final_tool_updates(client, sid)[-1]["_meta"]["rejected"]["by"] == "policy"
