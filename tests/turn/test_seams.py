"""The turn's two seams (issue 39): a new guard is a class and its place in `guards/registry.py`, a new edit format a
class and its line in `edit_formats/registry.py`; neither touches the loop. Each toy here is registered the way a
real one would be, runs in a real turn (in process, against a ScriptedProvider), and is seen acting."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agent_server.config import Settings
from agent_server.llm.scripted import ScriptedProvider, call
from agent_server.messages import Message, ToolCall
from agent_server.tools.base import Tool, ToolResult
from agent_server.turn.edit_formats.files import FilesFormat
from agent_server.turn.edit_formats.format import AfterCalls
from agent_server.turn.edit_formats.registry import FORMATS
from agent_server.turn.guards.answer_checks import TaskReminder
from agent_server.turn.guards.guard import Answer, Guard, Verdict
from agent_server.turn.guards.registry import GUARDS
from agent_server.turn.turn import Turn
from tests.turn.inprocess import RecordingClient, run, scripted_service

APOLOGY_NUDGE = "Do not apologize: answer the question."


class NoApologies(Guard):
    """A toy guard: an answer that only apologizes is asked again, once per turn."""

    async def tool_free_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        if answer.message.content.startswith("Sorry") and turn.take("apology", 1):
            return Verdict(nudge=APOLOGY_NUDGE)
        return None


class StampResults(Guard):
    """A toy guard at the tool-result hook point: what the model and the user get of each result."""

    async def after_tool_result(self, turn: Turn, call: ToolCall, tool: Tool, result: ToolResult) -> ToolResult:
        return ToolResult(text=result.text + "\n[stamped]", is_error=result.is_error)


@contextmanager
def registered(guard: Guard) -> Iterator[None]:
    """The guard in the registry, before the task reminder (where a new tool-free-answer check would go)."""
    GUARDS.insert(next(i for i, g in enumerate(GUARDS) if isinstance(g, TaskReminder)), guard)
    try:
        yield
    finally:
        GUARDS.remove(guard)


def sent(provider: ScriptedProvider, index: int = -1) -> str:
    return "\n".join(m.content for m in provider.requests[index].messages)


async def test_a_registered_guard_nudges_a_tool_free_answer(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    provider = ScriptedProvider("Sorry.", "Sorry again.", "It is 42.")
    client = RecordingClient()
    with registered(NoApologies()):
        async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
            assert await run(service, client, ws, "What is six times seven?") == "end_turn"
    # Told once (the cap of one), then the second apology ends the turn as any answer would.
    assert len(provider.requests) == 2
    assert provider.requests[1].messages[-1].content == APOLOGY_NUDGE
    assert client.text() == "Sorry.Sorry again."


async def test_without_the_guard_the_same_answer_ends_the_turn(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    provider = ScriptedProvider("Sorry.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
        assert await run(service, client, ws, "What is six times seven?") == "end_turn"
    assert len(provider.requests) == 1


async def test_a_registered_guard_sees_every_tool_result_first(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("hello\n")
    provider = ScriptedProvider(call("read_file", path="a.txt"), "It says hello.")
    client = RecordingClient()
    with registered(StampResults()):
        async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
            assert await run(service, client, ws, "Read a.txt") == "end_turn"
    assert "hello" in sent(provider) and "[stamped]" in sent(provider)  # the model got the stamped result
    assert any("[stamped]" in text for text in client.tool_results())  # and so did the user's card


class OneShot:
    """A toy edit format: edits are tool calls, and an answer whose calls all succeeded ends the turn (no round to
    hear the model say it is done)."""

    name = "one_shot"
    edits_in_text = False
    shows_files = False
    instructions = "\nONE-SHOT: make every change in one answer of tool calls."
    call_noun = "tool calls"
    answer_nudge = ""
    fix_ask = ""

    def replay(self, messages: list[Message]) -> list[Message]:
        return messages

    def after_calls(self, turn: Turn, answer: Message, results: list[ToolResult]) -> AfterCalls:
        return "done" if results and not any(r.is_error for r in results) else None


def one_shot(settings: Settings) -> Settings:
    # config.py lists the formats it accepts: a new format adds its name there; the toy is set past validation.
    agent = settings.agent.model_copy(update={"edit_format": "one_shot"})
    return settings.model_copy(update={"agent": agent})


async def test_a_registered_edit_format_is_offered_and_ends_the_turn_its_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(FORMATS, "one_shot", OneShot())
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("old\n")
    # A failed edit, then a write: the failure is another round, the success ends the turn with no third answer.
    provider = ScriptedProvider(
        call("edit_file", path="a.txt", old_text="absent", new_text="x"),
        call("write_file", path="a.txt", content="new\n"),
    )
    client = RecordingClient()
    async with scripted_service(ws, provider, client, adjust=one_shot) as service:
        assert await run(service, client, ws, "Put new in a.txt") == "end_turn"
    assert (ws / "a.txt").read_text() == "new\n"
    assert len(provider.requests) == 2
    assert "ONE-SHOT:" in provider.requests[0].messages[0].content  # the format's instructions, in the system prompt
    assert {t.name for t in provider.requests[0].tools} >= {"edit_file", "write_file"}  # offered as tools


def test_the_files_format_judges_results_by_their_error_flag_not_their_text() -> None:
    """An answer whose blocks all applied is the edit; whether one failed is the result's `is_error`, never the words
    it starts with (a file may well be about "Error: ..." handling)."""
    files = FilesFormat()
    answer = Message(role="assistant", recovered_tool_calls=True)
    wrote = ToolResult(text="Error: handling documented. Wrote errors.md")
    failed = ToolResult(text="The edit did not apply", is_error=True)
    turn: Turn = None  # type: ignore[assignment]  # neither answer reaches the per-turn cap of unchanged files
    assert files.after_calls(turn, answer, [wrote]) == "done"
    assert files.after_calls(turn, answer, [wrote, failed]) is None
    assert files.after_calls(turn, Message(role="assistant"), [wrote]) is None  # native calls are not the edit
