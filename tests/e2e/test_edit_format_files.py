"""agent.edit_format = "files" through the real server: the request's files in the prompt, no tool definitions,
the answer's whole file applied as an ordinary write (approval, diff card), and the turn done in one model call."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agent_server.store import Store
from agent_server.turn.edit_format import model_key
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import answer_permissions, install_apply_edit, prompt
from tests.fakes.fake_llm import FakeLLMServer, FakeModel, Reply

STUB = "def leap_year(year):\n    pass\n"
TESTS = "from leap import leap_year\n\n\ndef test_2000():\n    assert leap_year(2000)\n"
SOLUTION = "def leap_year(year):\n    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n"


def options(fake: FakeLLMServer, **agent: Any) -> dict[str, Any]:
    return {**llm_options(fake), "agent": agent}


def user_text(body: dict[str, Any]) -> str:
    return "\n".join(str(m["content"]) for m in body["messages"] if m["role"] == "user")


async def test_the_answer_s_file_is_written_after_approval_in_one_call(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "leap.py").write_text(STUB)
    (workspace / "leap_test.py").write_text(TESTS)
    fake_llm.script(Reply.text(f"Here you go.\n\nleap.py\n```python\n{SOLUTION}```\n"))
    client = await start_server(workspace, options(fake_llm, editFormat="files"))
    asked = answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Make the tests in leap_test.py pass by writing leap.py.") == "end_turn"
    assert (workspace / "leap.py").read_text() == SOLUTION
    assert (workspace / "leap_test.py").read_text() == TESTS  # shown, never written
    assert len(asked) == 1 and asked[0]["toolCall"]["rawInput"]["path"] == "leap.py"
    bodies = [r.json for r in fake_llm.chat_requests()]
    assert len(bodies) == 1  # the edit was the answer
    assert not bodies[0].get("tools")
    shown = user_text(bodies[0])
    assert STUB in shown and TESTS in shown and "leap.py\n```" in shown
    system = bodies[0]["messages"][0]["content"]
    assert "whole new content" in system
    cards = [u for u in client.updates(sid) if u["sessionUpdate"] == "tool_call"]
    assert [c["kind"] for c in cards] == ["edit"]


async def test_a_rejected_write_leaves_the_file_and_tells_the_model(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "leap.py").write_text(STUB)
    fake_llm.script(Reply.text(f"leap.py\n```python\n{SOLUTION}```"), Reply.text("Understood, I left it."))
    client = await start_server(workspace, options(fake_llm, editFormat="files"))
    answer_permissions(client, "reject_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Fix leap.py") == "end_turn"
    assert (workspace / "leap.py").read_text() == STUB
    second = fake_llm.chat_requests()[1].json["messages"]
    # The answer as the model wrote it, what happened to it as the user's reply: never JSON tool calls it would copy.
    assert any(m["role"] == "user" and "declined" in str(m["content"]).lower() for m in second), second
    assert all(m["role"] != "tool" and not m.get("tool_calls") for m in second), second
    assert second[-2] == {"role": "assistant", "content": f"leap.py\n```python\n{SOLUTION}```"}


@pytest.mark.parametrize(
    ("model", "files"),
    [("qwen2.5-coder:0.5b-instruct", True), ("qwen2.5-coder-1.5b-instruct-q4_k_m", True), ("qwen3:8b", False)],
)
async def test_auto_follows_what_was_measured_for_the_model(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, model: str, files: bool
) -> None:
    fake_llm.models = [FakeModel(model, context_length=8192, capabilities=["completion", "tools"])]
    (workspace / "leap.py").write_text(STUB)
    fake_llm.script(Reply.text("No change needed."))
    client = await start_server(
        workspace, {**llm_options(fake_llm), "llm": {**llm_options(fake_llm)["llm"], "model": model}}
    )
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Look at leap.py") == "end_turn"
    body = fake_llm.chat_requests()[0].json
    assert (not body.get("tools")) is files
    assert (STUB in user_text(body)) is files


@pytest.mark.parametrize(
    ("model", "remembered", "setting", "files"),
    [
        ("llama3.2:1b", "files", "auto", True),  # measured on this machine; the project's table knows nothing of it
        ("Llama3.2:1B", "files", "auto", True),  # another spelling of the same model
        ("qwen2.5-coder:0.5b-instruct", "tools", "auto", False),  # this machine's measurement beats the table
        ("llama3.2:1b", "files", "tools", False),  # the user's setting beats any measurement
        ("llama3.2:3b", None, "auto", False),  # another model: nothing measured, tool calls
    ],
)
async def test_auto_uses_the_format_a_scorecard_run_remembered_for_the_model(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path,
    model: str, remembered: str | None, setting: str, files: bool,
) -> None:  # fmt: skip
    store = Store(tmp_path / "agent.db")  # the store the server opens (conftest's start_server)
    if remembered:
        store.put_measured_format(model_key("llama3.2:1b" if remembered == "files" else model), remembered, "test")
    store.close()
    fake_llm.models = [FakeModel(model, context_length=8192, capabilities=["completion", "tools"])]
    (workspace / "leap.py").write_text(STUB)
    fake_llm.script(Reply.text("No change needed."))
    llm = {**llm_options(fake_llm)["llm"], "model": model}
    client = await start_server(workspace, {"llm": llm, "agent": {"editFormat": setting}})
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Look at leap.py") == "end_turn"
    body = fake_llm.chat_requests()[0].json
    assert (not body.get("tools")) is files
    assert (STUB in user_text(body)) is files


async def test_a_follow_up_naming_only_the_tests_shows_the_file_being_worked_on_again(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "leap.py").write_text(STUB)
    (workspace / "leap_test.py").write_text(TESTS)
    (workspace / "other.py").write_text("UNRELATED = 1\n")
    again = SOLUTION.replace("return", "return bool(") + ")\n"
    fake_llm.script(Reply.text(f"leap.py\n```python\n{SOLUTION}```"), Reply.text(f"leap.py\n```python\n{again}```"))
    client = await start_server(workspace, options(fake_llm, editFormat="files"))
    answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Write leap.py so that leap_test.py passes.") == "end_turn"
    assert await prompt(client, sid, "leap_test.py still fails: FAILED leap_test.py::test_2000") == "end_turn"
    follow_up = fake_llm.chat_requests()[1].json["messages"][-1]["content"]
    assert f"leap.py\n```python\n{SOLUTION}```" in follow_up  # the file as it is now, editable, shown again
    assert "Reply with the whole new content of leap.py" in follow_up and "Do not change leap_test.py" in follow_up
    assert "UNRELATED" not in follow_up


async def test_the_file_sent_back_unchanged_is_refused_and_the_model_answers_again(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    # The failed version, sent back as it is (Qwen2.5-Coder-0.5B does this in about half its retries): no approval,
    # no "Overwrote", and the model hears that nothing changed; its next answer is the fix.
    wrong = "def leap_year(year):\n    return year % 4 == 0\n"
    (workspace / "leap.py").write_text(wrong)
    (workspace / "leap_test.py").write_text(TESTS)
    fake_llm.script(Reply.text(f"leap.py\n```python\n{wrong}```"), Reply.text(f"leap.py\n```python\n{SOLUTION}```"))
    client = await start_server(workspace, options(fake_llm, editFormat="files"))
    asked = answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "leap_test.py fails: 1900 is not a leap year. Fix leap.py.") == "end_turn"
    assert (workspace / "leap.py").read_text() == SOLUTION
    assert len(asked) == 1  # only the real change asked
    told = fake_llm.chat_requests()[1].json["messages"]
    assert any("leap.py already has exactly this content" in str(m["content"]) for m in told), told


async def test_the_same_unchanged_file_twice_ends_the_turn(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    # A 0.5B model that copies the file it was shown copies it again after being told: a third round is wasted time.
    (workspace / "leap.py").write_text(STUB)
    fake_llm.script(*[Reply.text(f"leap.py\n```python\n{STUB}```")] * 4)
    client = await start_server(workspace, options(fake_llm, editFormat="files"))
    asked = answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Fix leap.py") == "end_turn"
    assert len(fake_llm.chat_requests()) == 2 and asked == []
    assert (workspace / "leap.py").read_text() == STUB


async def test_a_request_naming_only_the_tests_shows_the_code_they_import(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "text").mkdir()
    (workspace / "text" / "slug.py").write_text("def slugify(t):\n    return t.lower()\n")
    (workspace / "tests").mkdir()
    (workspace / "tests" / "test_slug.py").write_text(
        "from text.slug import slugify\n\n\ndef test_a():\n    assert slugify('A B') == 'a-b'\n"
    )
    fixed = "def slugify(t):\n    return t.lower().replace(' ', '-')\n"
    fake_llm.script(Reply.text(f"```python\n{fixed}```"))
    client = await start_server(workspace, options(fake_llm, editFormat="files"))
    answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Make tests/test_slug.py pass.") == "end_turn"
    shown = user_text(fake_llm.chat_requests()[0].json)
    assert "text/slug.py\n```python\ndef slugify" in shown and "Do not change tests/test_slug.py" in shown
    assert (workspace / "text" / "slug.py").read_text() == fixed


async def test_the_verify_command_checks_an_applied_answer_and_sends_failures_back(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "leap.py").write_text(STUB)
    wrong = "def leap_year(year):\n    return False\n"
    fake_llm.script(Reply.text(f"leap.py\n```python\n{wrong}```"), Reply.text(f"leap.py\n```python\n{SOLUTION}```"))
    check = "python -c 'import leap, sys; sys.exit(0 if leap.leap_year(2000) else 3)'"
    client = await start_server(workspace, options(fake_llm, editFormat="files", verifyCommand=check))
    answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Write leap.py.") == "end_turn"
    assert (workspace / "leap.py").read_text() == SOLUTION
    bodies = [r.json for r in fake_llm.chat_requests()]
    assert len(bodies) == 2  # the failed check went back once; the fixed answer passed it
    assert f"The check `{check}` failed (exit code 3)" in bodies[1]["messages"][-1]["content"]


async def test_a_question_gets_the_files_first_and_its_answer_is_never_taken_for_an_edit(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "leap.py").write_text(STUB)
    # A small model often quotes the file in its answer: that is not a change to write.
    fake_llm.script(Reply.text(f"It is a stub.\n\nleap.py\n```python\n{STUB}```"))
    client = await start_server(workspace, options(fake_llm, editFormat="files"))
    asked = answer_permissions(client, "allow_once")
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "What does leap.py do?") == "end_turn"
    assert asked == [] and len(fake_llm.chat_requests()) == 1  # no write asked, no unread-file nudge
    content = fake_llm.chat_requests()[0].json["messages"][-1]["content"]
    assert content.index(STUB) < content.index("What does leap.py do?")  # the question comes after the file
    assert "Reply with the whole new content" not in content


async def test_file_blocks_are_tool_calls_under_the_same_sandbox_and_policy(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    """Model output in the files format acts only as tool calls would: nothing outside the workspace, and a path that
    makes tools run programs asks even when writes are allowed."""
    (workspace / "leap.py").write_text(STUB)
    outside = tmp_path / "outside.py"
    answer = (
        f"../outside.py\n```python\nESCAPED = 1\n```\n\n{outside}\n```python\nESCAPED = 2\n```\n\n"
        '.vscode/tasks.json\n```json\n{"tasks": [{"command": "touch owned"}]}\n```\n'
        # Paths named inside a block (its first line, a comment further down) get no further than the sandbox.
        "```python\n# ../outside.py\nESCAPED = 3\n```\n\n"
        f"```python\n# leap.py\ndef leap_year(year):\n    return 1\n# {outside}\nESCAPED = 4\n```\n"
    )
    fake_llm.script(Reply.text(answer), Reply.text("ok"))
    client = await start_server(
        workspace,
        {**llm_options(fake_llm), "agent": {"editFormat": "files"}, "tools": {"policy": {"write_file": "allow"}}},
    )
    asked = answer_permissions(client, "reject_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Rewrite leap.py.") == "end_turn"
    assert not outside.exists() and not (workspace.parent / "outside.py").exists()
    assert not (workspace / ".vscode" / "tasks.json").exists()
    assert [p["toolCall"]["rawInput"]["path"] for p in asked] == [".vscode/tasks.json"]  # asked despite the allow
    # Further down a block, only a shown file's path splits it: any other path is a comment of leap.py's code.
    assert f"# {outside}\nESCAPED = 4" in (workspace / "leap.py").read_text()


async def test_a_fifo_or_huge_file_named_in_a_request_never_blocks_the_turn(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    os.mkfifo(workspace / "pipe.py")
    (workspace / "huge.py").write_text("x = 1\n" * 3_000_000)
    (workspace / "leap.py").write_text(STUB)
    fake_llm.script(Reply.text("Nothing to change."))
    client = await start_server(workspace, options(fake_llm, editFormat="files"))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Fix pipe.py, huge.py and leap.py.") == "end_turn"
    content = fake_llm.chat_requests()[0].json["messages"][-1]["content"]
    assert STUB in content and "x = 1\nx = 1" not in content  # the regular, small file shown; the others skipped
