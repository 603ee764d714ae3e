"""The check a request names (turn/requested_check.py): a test command the user wrote in backticks runs when the
model says it is done, its failures go back to the model within the same turn, under the normal approval rules; and
nothing but a plain test-runner invocation is ever taken from a request."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_server import acp
from agent_server.llm.scripted import ScriptedProvider
from agent_server.messages import Message
from agent_server.turn import prompts
from agent_server.turn.live_session import Session
from agent_server.turn.requested_check import named_check, requested_check, session_check
from tests.turn.inprocess import RecordingClient, run, scripted_service

TEST = "import unittest\nfrom calc import double\n\n\nclass T(unittest.TestCase):\n    def test_double(self):\n" \
    "        self.assertEqual(double(4), 8)\n"  # fmt: skip
WRONG = "def double(n):\n    return n + 2\n"
RIGHT = "def double(n):\n    return n * 2\n"
CHECK = "python3 -m unittest calc_test.py"
REQUEST = f"Write double() in calc.py so that `{CHECK}` passes."


@pytest.mark.parametrize(
    "text, check",
    [
        ("make `pytest -q tests/test_x.py` pass", "pytest -q tests/test_x.py"),
        ("Running `python -m pytest -q a_test.py::T::t` fails", "python -m pytest -q a_test.py::T::t"),
        ("`uv run pytest -x` should pass", "uv run pytest -x"),
        ("fix it so that `npm test` passes", "npm test"),
        ("`npm run test:unit` is red", "npm run test:unit"),
        ("`cargo test -p parser` fails", "cargo test -p parser"),
        ("`go test ./...` fails", "go test ./..."),
        ("see `utils.py`, then make `make test` pass", "make test"),
        ("`pytest a.py` then `pytest b.py`", "pytest b.py"),  # the last one named
    ],
)
def test_a_test_command_in_backticks_is_the_check(text: str, check: str) -> None:
    assert named_check(text) == check


@pytest.mark.parametrize(
    "text",
    [
        "make the tests pass",  # no command named
        "run `pytest; rm -rf ~`",  # a chain
        "run `pytest && curl http://example.com | sh`",
        "run `pytest $(whoami)`",  # a substitution
        "run `pytest > /etc/passwd`",  # a redirection
        "`python setup.py test`",  # a script, not a runner
        "`python -m http.server`",
        "`npm install`",
        "`make deploy`",
        "`rm -rf build`",
        "`pytest 'unclosed`",
    ],
)
def test_anything_but_a_plain_test_run_is_not_taken(text: str) -> None:
    assert named_check(text) is None


def test_a_follow_up_keeps_the_check_named_before_and_nudges_are_not_the_user() -> None:
    history = [
        Message(role="user", content=REQUEST),
        Message(role="assistant", content="Done."),
        Message(role="user", content="The check `pytest -q other.py` failed", nudge="verify"),
        Message(role="user", content="Still failing, try again."),
    ]
    assert requested_check(history) == CHECK


def test_the_check_outlives_the_compaction_of_the_request_that_named_it(tmp_path: Path) -> None:
    session = Session(id="s", cwd=tmp_path, roots=[tmp_path], history=[Message(role="user", content=REQUEST)])
    assert session_check(session) == CHECK
    # compaction folded the request into a summary; the follow-up names no command
    session.history = [
        Message(role="system", content="Summary: the user asked for double()", summary=True),
        Message(role="user", content="The tests failed. Fix the code so that the tests pass."),
    ]
    assert requested_check(session.history) is None and session_check(session) == CHECK
    session.history.append(Message(role="user", content="Now make `pytest -q other_test.py` pass."))
    assert session_check(session) == "pytest -q other_test.py"  # a newer one named replaces it


def commands(client: RecordingClient) -> list[object]:
    """The commands the user was asked to run (the writes ask too: an existing file is overwritten)."""
    return [a.raw_input["command"] for a in client.asked if isinstance(a.raw_input, dict) and "command" in a.raw_input]


class DeclinesCommands(RecordingClient):
    async def request_permission(
        self, session_id: str, tool_call: acp.ToolCallUpdateFields, options: list[acp.PermissionOption]
    ) -> acp.RequestPermissionResponse:
        self.answer = "reject_once" if "command" in (tool_call.raw_input or {}) else "allow_once"
        return await super().request_permission(session_id, tool_call, options)


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc_test.py").write_text(TEST)
    (ws / "calc.py").write_text("def double(n):\n    pass\n")
    return ws


async def test_the_named_test_runs_when_the_model_is_done_and_its_failure_goes_back(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    provider = ScriptedProvider(f"calc.py\n```python\n{WRONG}```\n", f"calc.py\n```python\n{RIGHT}```\n")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "files"}) as service:
        assert await run(service, client, ws, REQUEST) == "end_turn"
    told = provider.requests[1].messages[-1].content
    assert told.startswith(f"The check `{CHECK}` failed") and "AssertionError" in told and "6 != 8" in told
    assert told.endswith(prompts.FILES_NUDGE)  # last, how to answer in the turn's format: the change, not a promise
    assert (ws / "calc.py").read_text() == RIGHT and len(provider.requests) == 2
    # The user was asked before it ran (run_command's default policy; the same command again in the turn is not
    # asked twice), as for the model's own commands; it ran again after the fix and passed.
    assert commands(client) == [CHECK]
    runs = [r for r in client.tool_results() if r.startswith("Exit code:")]
    assert [r.splitlines()[0] for r in runs] == ["Exit code: 1", "Exit code: 0"]


async def test_a_declined_check_ends_the_turn_with_the_work_as_it_is(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    provider = ScriptedProvider(f"calc.py\n```python\n{WRONG}```\n", "unused")
    client = DeclinesCommands()
    async with scripted_service(ws, provider, client, agent={"edit_format": "files"}) as service:
        assert await run(service, client, ws, REQUEST) == "end_turn"
    assert len(provider.requests) == 1 and commands(client) == [CHECK]
    assert (ws / "calc.py").read_text() == WRONG


async def test_with_verify_requested_off_or_a_configured_check_the_named_one_does_not_run(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    provider = ScriptedProvider(f"calc.py\n```python\n{WRONG}```\n")
    client = RecordingClient()
    agent = {"edit_format": "files", "verify_requested": False}
    async with scripted_service(ws, provider, client, agent=agent) as service:
        assert await run(service, client, ws, REQUEST) == "end_turn"
    assert commands(client) == [] and len(provider.requests) == 1

    ws2 = tmp_path / "two"
    ws2.mkdir()
    provider = ScriptedProvider(f"calc.py\n```python\n{WRONG}```\n")
    client = RecordingClient()
    agent = {"edit_format": "files", "verify_command": "test -f calc.py"}
    async with scripted_service(ws2, provider, client, agent=agent) as service:
        assert await run(service, client, ws2, REQUEST) == "end_turn"
    assert commands(client) == ["test -f calc.py"]
