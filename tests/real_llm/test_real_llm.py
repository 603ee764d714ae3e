"""The real agent-server (stdio) against the real llama-server running SmolLM2-135M with a 2,048-token window.

These assert what must hold whatever a 135M model answers: valid stop reasons, a consistent stored history, schema-valid
updates and no protocol error, the real window and tool mode, compaction past the window, a freed slot after cancel.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from agent_server.store import Store
from tests.e2e.conftest import Start, new_session
from tests.e2e.helpers import prompt_params, validate_updates
from tests.lsp_client import LspClient
from tests.real_llm.llama import N_CTX, LlamaServer

STOP_REASONS = {"end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"}
TURN_TIMEOUT_S = 900  # a 135M model on 2 shared cores: prompt evaluation runs at tens of tokens per second


async def prompt(client: LspClient, session_id: str, text: str) -> str:
    result = await client.request("agent/session/prompt", prompt_params(session_id, text), timeout=TURN_TIMEOUT_S)
    return str(result["stopReason"])


def stored_history(db: Path, session_id: str) -> list[dict[str, object]]:
    with Store(db) as store:
        return [
            {"role": m.role, "calls": [c.id for c in m.tool_calls], "answers": m.tool_call_id}
            for m in store.load_messages(session_id)
        ]


def assert_consistent(history: list[dict[str, object]]) -> None:
    """Every tool call has its result before the next assistant or user message, and no result is orphaned."""
    pending: list[object] = []
    for m in history:
        if m["role"] == "tool":
            assert m["answers"] in pending, f"a result for no pending call: {history}"
            pending.remove(m["answers"])
            continue
        assert not pending, f"calls without results before a {m['role']} message: {history}"
        if m["role"] == "assistant":
            pending = list(m["calls"])  # type: ignore[arg-type]
    assert not pending, f"trailing calls without results: {history}"


async def test_a_streamed_answer(start_server: Start, workspace: Path, llama: LlamaServer) -> None:
    client = await start_server(workspace, llama.options(maxTokens=48))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Say hello in one short sentence.") in STOP_REASONS
    chunks = [u for u in client.updates(sid) if u["sessionUpdate"] == "agent_message_chunk"]
    assert chunks and "".join(c["content"]["text"] for c in chunks).strip()
    validate_updates(client)


async def test_a_turn_with_tools_in_the_mode_the_capabilities_chose(
    start_server: Start, workspace: Path, llama: LlamaServer, tmp_path: Path
) -> None:
    (workspace / "notes.txt").write_text("The launch code is 4711.\n")
    client = await start_server(workspace, llama.options(maxTokens=96))
    sid = await new_session(client, workspace)
    reason = await prompt(client, sid, "Use the read_file tool to read notes.txt, then tell me what it says.")
    assert reason in STOP_REASONS
    validate_updates(client)
    history = stored_history(tmp_path / "agent.db", sid)
    assert history[0]["role"] == "user" and any(m["role"] == "assistant" for m in history)
    assert_consistent(history)
    # The session goes on after whatever the model did.
    assert await prompt(client, sid, "Thanks. Answer in one word: ok?") in STOP_REASONS
    assert_consistent(stored_history(tmp_path / "agent.db", sid))


def test_doctor_shows_the_real_window_and_tool_mode(workspace: Path, llama: LlamaServer) -> None:
    args = ["doctor", "--json", "--provider", "openai", "--base-url", llama.url, "--model", llama.model]
    proc = subprocess.run(
        [sys.executable, "-m", "agent_server", *args, "-w", str(workspace)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    model = next(m for m in report["models"] if m["name"] == llama.model)
    props = llama.get("/props")
    assert model["context_length"] == props["default_generation_settings"]["n_ctx"] == N_CTX
    supports = props["chat_template_caps"]["supports_tools"]
    assert model["tools"] == ("native" if supports else "prompt-based")
    assert any("llama.cpp /props" in n and f"n_ctx={N_CTX}" in n for n in report["notes"])


async def test_a_conversation_that_outgrows_the_window_keeps_working(
    start_server: Start, workspace: Path, llama: LlamaServer, tmp_path: Path
) -> None:
    client = await start_server(workspace, llama.options(maxTokens=32))
    sid = await new_session(client, workspace)
    facts = [
        " ".join(
            f"Fact {i}.{k}: the service {name} listens on port {8000 + i} and writes its logs to /var/log/{name}.log; "
            f"it restarts on failure at most {k + 2} times per hour, then pages the on-call engineer."
            for k in range(10)
        )
        for i, name in enumerate(["alpha", "bravo", "charlie", "delta", "echo"])
    ]
    for fact in facts:
        assert await prompt(client, sid, fact + "\nReply with one word.") in STOP_REASONS
    sent = sum(len(f) for f in facts) // 4
    assert sent > N_CTX, "the conversation must outgrow the window"
    thoughts = client.text(sid, "agent_thought_chunk")
    assert "compact" in thoughts.lower(), thoughts[-2000:]
    assert await prompt(client, sid, "Which port does alpha use?") in STOP_REASONS
    validate_updates(client)
    assert_consistent(stored_history(tmp_path / "agent.db", sid))


async def test_cancel_mid_generation_frees_the_slot(start_server: Start, workspace: Path, llama: LlamaServer) -> None:
    client: LspClient = await start_server(workspace, llama.options(maxTokens=1500))
    sid = await new_session(client, workspace)
    _, fut = client.request_nowait("agent/session/prompt", prompt_params(sid, "Write a very long story about a cat."))
    await client.wait_for(lambda: bool(client.text(sid)), timeout=120)
    assert any(slot["is_processing"] for slot in llama.get("/slots"))
    client.notify("agent/session/cancel", {"sessionId": sid})
    assert (await asyncio.wait_for(fut, 30))["stopReason"] == "cancelled"
    for _ in range(100):  # the server notices the closed connection at its next token
        if not any(slot["is_processing"] for slot in llama.get("/slots")):
            break
        await asyncio.sleep(0.1)
    assert not any(slot["is_processing"] for slot in llama.get("/slots")), llama.get("/slots")
    # The slot serves the next prompt.
    assert await prompt(client, sid, "Say ok.") in STOP_REASONS
