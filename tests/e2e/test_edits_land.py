"""Issue 28 through the real server: the errors an edit introduced reach the model (from the editor's diagnostics,
or a configured linter), the verify loop, and approvals that fit a session. The "editor" here answers
`agent/_diagnostics` with what a real linter (ruff, as a language server would) reports for the file on disk."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import (
    answer_permissions,
    install_apply_edit,
    prompt,
    sent_messages,
    tool_results,
    tool_updates,
    validate_updates,
)
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient

SOURCE = "import os\n\n\ndef total(xs):\n    return sum(xs)\n"
RUFF = f"{sys.executable} -m ruff"
FINAL = ("completed", "failed")


async def ruff_diagnostics(path: Path) -> list[dict[str, Any]]:
    """What a ruff language server reports for `path`: LSP diagnostics from `ruff check --output-format json`."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "json", str(path),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, cwd=path.parent,
    )  # fmt: skip
    out, _ = await proc.communicate()
    return [
        {
            "range": {
                "start": {"line": d["location"]["row"] - 1, "character": d["location"]["column"] - 1},
                "end": {"line": d["end_location"]["row"] - 1, "character": d["end_location"]["column"] - 1},
            },
            "severity": 1,
            "source": "Ruff",
            "code": d["code"],
            "message": d["message"],
        }
        for d in json.loads(out or b"[]")
    ]


def answer_diagnostics(client: LspClient) -> list[dict[str, Any]]:
    """Answer agent/_diagnostics like our editor plugins: the file's diagnostics and a change counter."""
    seen: list[dict[str, Any]] = []

    async def handler(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(params)
        path = Path(unquote(urlparse(params["uri"]).path))
        generation = int(params.get("after", 0)) + (1 if "after" in params else 0)
        return {"diagnostics": await ruff_diagnostics(path), "generation": generation}

    client.handlers["agent/_diagnostics"] = handler
    return seen


async def test_the_model_hears_only_the_errors_its_edit_introduced(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    server = await start_server(workspace, {**llm_options(fake_llm), "diagnosticsRequest": True})
    target = workspace / "calc.py"
    target.write_text(SOURCE)
    asked = answer_diagnostics(server)
    answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "calc.py", "old_text": "sum(xs)", "new_text": "sum(xs) + offset"}),
        Reply.text("done"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "add the offset") == "end_turn"

    result = tool_results(sent_messages(fake_llm, 1))[-1]
    assert "1 new error" in result and "calc.py:5:22: Undefined name `offset` [Ruff (F821)]" in result
    assert "os" not in result.split("fix them:")[1], "an error that was there before the edit was reported"
    assert [("after" in p) for p in asked] == [False, True]  # before the edit, then once settled after it
    card = [u for u in tool_updates(server, sid) if u.get("status") == "completed"][-1]
    assert "Undefined name `offset`" in json.dumps(card["content"])
    validate_updates(server)


async def test_an_edit_that_fixes_errors_adds_nothing(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    server = await start_server(workspace, {**llm_options(fake_llm), "diagnosticsRequest": True})
    (workspace / "calc.py").write_text(SOURCE.replace("sum(xs)", "sum(xs) + offset"))
    answer_diagnostics(server)
    answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "calc.py", "old_text": "sum(xs) + offset", "new_text": "sum(xs)"}),
        Reply.text("done"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "fix it") == "end_turn"
    result = tool_results(sent_messages(fake_llm, 1))[-1]
    assert result.startswith("Edited calc.py") and "error" not in result


async def test_without_editor_diagnostics_the_configured_linter_runs_once_asked(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    lint = f"{RUFF} check --no-cache --output-format concise calc.py"
    options = {**llm_options(fake_llm), "tools": {"lint": {"python": lint.replace("calc.py", "{file}")}}}
    server = await start_server(workspace, options)
    target = workspace / "calc.py"
    target.write_text(SOURCE)
    asked = answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "calc.py", "old_text": "sum(xs)", "new_text": "sum(xs) + offset"}),
        Reply.text("done"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "add the offset") == "end_turn"

    result = tool_results(sent_messages(fake_llm, 1))[-1]
    assert "reports new problems" in result and "F821 Undefined name `offset`" in result
    assert "F401" not in result  # `import os` was unused before the edit too
    # Asked about the edit and about the linter once: its second run in the turn is the same call.
    assert [a["toolCall"]["title"].split()[0] for a in asked] == ["Edit", "Run"]
    assert asked[1]["toolCall"]["_meta"]["why"] == [f"`{lint}`: no rule or earlier answer allows it"]
    lint_cards = [
        u for u in tool_updates(server, sid) if u["toolCallId"].startswith("lint_") and u.get("status") in FINAL
    ]
    assert len(lint_cards) == 2  # before and after the edit, both shown
    validate_updates(server)


CHECK = "import sys\nsys.exit(0 if 'fixed' in open('state.txt').read() else 'state.txt is not fixed yet')\n"


async def test_verify_command_sends_failures_back_until_it_passes(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    options = {**llm_options(fake_llm), "agent": {"verifyCommand": f"{sys.executable} check.py", "verifyMax": 2}}
    server = await start_server(workspace, options)
    (workspace / "check.py").write_text(CHECK)
    (workspace / "state.txt").write_text("broken\n")
    answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "state.txt", "old_text": "broken", "new_text": "half"}),
        Reply.text("Done."),
        Reply.tool_call("edit_file", {"path": "state.txt", "old_text": "half", "new_text": "fixed"}),
        Reply.text("Done now."),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "fix state.txt") == "end_turn"

    assert len(fake_llm.chat_requests()) == 4
    feedback = sent_messages(fake_llm, 2)[-1]
    assert feedback["role"] == "user" and "check.py` failed (exit code 1)" in feedback["content"]
    assert "state.txt is not fixed yet" in feedback["content"]
    verify_cards = [
        u
        for u in tool_updates(server, sid)
        if u["toolCallId"].startswith("verify_") and u["sessionUpdate"] == "tool_call"
    ]
    assert len(verify_cards) == 2  # failed, then passed: both visible
    assert (workspace / "state.txt").read_text() == "fixed\n"


async def test_verify_gives_failures_back_at_most_verify_max_times(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    options = {**llm_options(fake_llm), "agent": {"verifyCommand": f"{sys.executable} check.py", "verifyMax": 1}}
    server = await start_server(workspace, options)
    (workspace / "check.py").write_text(CHECK)
    (workspace / "state.txt").write_text("broken\n")
    answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "state.txt", "old_text": "broken", "new_text": "half"}),
        Reply.text("Done."),
        Reply.tool_call("edit_file", {"path": "state.txt", "old_text": "half", "new_text": "still"}),
        Reply.text("Done now."),
        Reply.text("never asked"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "fix state.txt") == "end_turn"
    assert len(fake_llm.chat_requests()) == 4  # one failure given back, then the turn ends
    verify_cards = [
        u
        for u in tool_updates(server, sid)
        if u["toolCallId"].startswith("verify_") and u["sessionUpdate"] == "tool_call"
    ]
    assert len(verify_cards) == 2  # the last run is still shown


async def test_no_verify_when_nothing_changed(server: LspClient, workspace: Path, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("Just an answer."))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "hi") == "end_turn"
    assert not [u for u in tool_updates(server, sid) if u["toolCallId"].startswith("verify_")]


async def test_allow_for_this_session_says_why_and_is_not_asked_again(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    server = await start_server(workspace, llm_options(fake_llm))
    asked = answer_permissions(server, "allow_session")
    command = {"command": "echo one && touch made.txt"}
    fake_llm.script(
        Reply.tool_call("run_command", command),
        Reply.text("ran"),
        Reply.tool_call("run_command", command),
        Reply.text("ran again"),
        Reply.tool_call("run_command", command),
        Reply.text("ran in another session"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "run it") == "end_turn"
    assert await prompt(server, sid, "again") == "end_turn"
    assert len(asked) == 1, "an answer for this session was asked again in the session"
    options = [(o["optionId"], o["kind"]) for o in asked[0]["options"]]
    assert options[:3] == [
        ("allow_once", "allow_once"),
        ("allow_session", "allow_once"),
        ("allow_always", "allow_always"),
    ]
    why = asked[0]["toolCall"]["_meta"]["why"]
    assert any(w.startswith("`echo one`") for w in why) and any(w.startswith("`touch made.txt`") for w in why)

    other = await new_session(server, workspace)
    assert await prompt(server, other, "run it here") == "end_turn"
    assert len(asked) == 2, "a session answer leaked into another session"


async def test_the_same_call_is_not_asked_twice_in_one_turn(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    asked = answer_permissions(server, "allow_once")
    fake_llm.script(
        Reply.tool_call("run_command", {"command": "echo same"}),
        Reply.tool_call("run_command", {"command": "echo same"}),
        Reply.tool_call("run_command", {"command": "echo other"}),
        Reply.text("done"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "echo") == "end_turn"
    assert [a["toolCall"]["rawInput"]["command"] for a in asked] == ["echo same", "echo other"]
