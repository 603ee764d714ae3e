"""One small-window turn (issue 13) against the real llama-server of this lane (2,048 tokens): a turn asked to read
files bigger than the window's room ends with a valid stop reason, never an overflow error, and the session goes on.

Whatever the 135M model does (read or not), these hold: no JSON-RPC error, a consistent stored history, every
file the model read came back as a page that fits the window (with the marker saying how to get the rest)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import Start, new_session
from tests.e2e.helpers import prompt, validate_updates
from tests.real_llm.llama import N_CTX, LlamaServer
from tests.real_llm.test_real_llm import STOP_REASONS, assert_consistent, stored_history


def _module(name: str) -> str:
    return "".join(
        f'def {name}_step_{n}(value: int) -> int:\n    """Step {n} of {name}."""\n    return value * {n} + 1\n\n'
        for n in range(60)
    )


async def test_a_turn_reading_big_files_in_a_2k_window(
    start_server: Start, workspace: Path, llama: LlamaServer, tmp_path: Path
) -> None:
    for name in ("alpha", "bravo", "charlie"):
        (workspace / f"{name}.py").write_text(_module(name))  # ~6,000 characters each: bigger than the room
    client = await start_server(workspace, {**llama.options(maxTokens=64), "agent": {"maxRounds": 6}})
    sid = await new_session(client, workspace)
    reason = await prompt(client, sid, "Use read_file to read alpha.py, then bravo.py, then charlie.py. Then say done.")
    assert reason in STOP_REASONS
    reads = [
        u
        for u in client.updates(sid)
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed" and "lines" in str(u)
    ]
    for update in reads:
        text = "".join(c["content"].get("text", "") for c in update.get("content") or [] if c.get("type") == "content")
        assert len(text) / 3.5 < N_CTX / 2, "a read must come back as a page that fits the window"
    assert_consistent(stored_history(tmp_path / "agent.db", sid))
    assert await prompt(client, sid, "Say ok.") in STOP_REASONS  # the session is not stuck over its window
    validate_updates(client)
