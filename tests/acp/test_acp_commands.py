"""Custom commands on the ACP face: advertised with available_commands_update beside the built-in ones (again when
the list changes), and run as prompts whose expansion reaches the model."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.acp.test_acp_edges import _init, _new, start, workspace  # noqa: F401  (fixtures)
from tests.fakes.fake_llm import FakeLLMServer, Reply


def _advertised(proc: object, sid: str) -> list[list[dict[str, object]]]:
    updates = proc.updates(sid)  # type: ignore[attr-defined]
    return [u["availableCommands"] for u in updates if u["sessionUpdate"] == "available_commands_update"]


async def test_prompt_files_are_advertised_and_run(
    start: object,  # noqa: F811
    workspace: Path,  # noqa: F811
    fake_llm: FakeLLMServer,
) -> None:
    commands = workspace / ".agent-server" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1.")
    (commands / "mode.md").write_text("a file cannot take a built-in command's name")
    proc = await start()  # type: ignore[operator]
    await _init(proc)
    sid = await _new(proc, workspace)
    for _ in range(50):
        if _advertised(proc, sid):
            break
        await asyncio.sleep(0.05)
    first = {c["name"]: c for c in _advertised(proc, sid)[0]}
    assert first["review"] == {"name": "review", "description": "Review a file", "input": {"hint": "<file>"}}
    assert "compact" in first and first["mode"]["description"].startswith("Show the modes")
    fake_llm.script(Reply.text("ok"))
    (commands / "later.md").write_text("Added while the session runs.")
    before = len(fake_llm.chat_requests())
    await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "/review main.py"}]})
    # (the turn's first request: an answer that never read main.py earns a nudge after it)
    assert fake_llm.chat_requests()[before].json["messages"][-1]["content"] == "Review main.py."
    for _ in range(50):
        if len(_advertised(proc, sid)) > 1:
            break
        await asyncio.sleep(0.05)
    assert "later" in {c["name"] for c in _advertised(proc, sid)[-1]}, "a changed list is advertised again"
