"""Failures between the parts: two processes on one session, an LLM dying mid-answer, a client without approvals."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_server.store import Store
from tests.e2e.conftest import Start, llm_options, new_session
from tests.fakes.fake_llm import Delay, FakeLLMServer, FakeModel, Reply, StreamError, Text
from tests.lsp_client import LspClient, RpcError


def ask(client: LspClient, sid: str, text: str) -> object:
    return client.request("agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})


async def test_two_processes_share_one_history(start_server: Start, workspace: Path, fake_llm: FakeLLMServer) -> None:
    a = await start_server(workspace, llm_options(fake_llm))
    b = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(a, workspace)
    fake_llm.script(Reply.text("one"), Reply.text("two"), Reply.text("three"))
    await ask(a, sid, "A first")
    await ask(b, sid, "B second")
    await ask(a, sid, "A third")
    sent = [m["content"] for m in fake_llm.chat_requests()[-1].json["messages"] if m["role"] != "system"]
    assert sent == ["A first", "one", "B second", "two", "A third"]


async def test_concurrent_prompts_on_a_session_not_yet_loaded(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    a = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(a, workspace)
    b = await start_server(workspace, llm_options(fake_llm))
    fake_llm.script(Reply(steps=[Delay(0.3), Text("slow")]), Reply.text("never"))
    first, second = await asyncio.gather(ask(b, sid, "first"), ask(b, sid, "second"), return_exceptions=True)
    outcomes = sorted(str(type(x).__name__) for x in (first, second))
    assert outcomes == ["RpcError", "dict"], (first, second)  # one runs, the other is refused as busy
    assert len(fake_llm.chat_requests()) == 1


async def test_partial_answer_survives_an_llm_failure(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    client = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(client, workspace)
    fake_llm.script(Reply(steps=[Text("part one "), StreamError("an error was encountered while running the model")]))
    try:
        await ask(client, sid, "hi")
    except RpcError as exc:
        assert "an error was encountered" in exc.message
    else:
        raise AssertionError("the mid-stream error must reach the client")
    with Store(tmp_path / "agent.db") as store:
        kept = [(m.role, m.content) for m in store.transcript(sid)]
    assert kept == [("user", "hi"), ("assistant", "part one ")]


async def test_client_without_permission_ui_declines_instead_of_failing(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    client = await start_server(workspace, llm_options(fake_llm))

    def no_ui(params: object) -> object:
        raise RuntimeError("no permission UI")

    client.handlers["agent/session/request_permission"] = no_ui
    sid = await new_session(client, workspace)
    fake_llm.script(
        Reply.tool_call("write_file", {"path": "x.txt", "content": "x"}), Reply.text("I could not write it.")
    )
    assert await ask(client, sid, "write x") == {"stopReason": "end_turn"}
    assert not (workspace / "x.txt").exists()
    final = [u for u in client.updates(sid) if u["sessionUpdate"] == "tool_call_update"][-1]
    assert final["status"] == "failed"
    result = fake_llm.chat_requests()[-1].json["messages"][-1]
    assert result["role"] == "tool" and "declined" in result["content"]


async def test_switching_models_mid_turn_lets_the_turn_finish(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.models.append(FakeModel("other:1b"))  # a model the server lists; an unlisted one is refused
    client = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(client, workspace)
    fake_llm.script(Reply(steps=[Text("part one "), Delay(0.5), Text("part two")]), Reply.text("from the new model"))
    _, fut = client.request_nowait(
        "agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
    )
    await client.wait_for(lambda: "part one" in client.text(sid))
    await client.request("agent/_models/select", {"model": "other:1b"})
    assert await asyncio.wait_for(fut, 10) == {"stopReason": "end_turn"}
    assert client.text(sid) == "part one part two"
    await ask(client, sid, "again")
    assert fake_llm.chat_requests()[-1].json["model"] == "other:1b"


async def test_a_cancelled_tool_call_card_ends_as_failed(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    client = await start_server(workspace, {**llm_options(fake_llm), "tools": {"policy": {"run_command": "allow"}}})
    sid = await new_session(client, workspace)
    fake_llm.script(Reply.tool_call("run_command", {"command": "sleep 30"}))
    _, fut = client.request_nowait(
        "agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "wait"}]}
    )
    await client.wait_for(lambda: any(u.get("status") == "in_progress" for u in client.updates(sid)))
    client.notify("agent/session/cancel", {"sessionId": sid})
    assert await asyncio.wait_for(fut, 5) == {"stopReason": "cancelled"}
    await client.wait_for(lambda: client.updates(sid)[-1].get("status") == "failed", 5)


async def test_an_approval_answered_after_the_turn_was_stopped_is_dropped_quietly(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    # The user stops the turn while its approval is open, then clicks Allow: the click answers a request the server
    # gave up on. It writes nothing, logs no error, and the next turn runs as usual.
    client = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(client, workspace)
    asked, stopped = asyncio.Event(), asyncio.Event()

    async def late_click(params: object) -> object:
        asked.set()
        await stopped.wait()
        await asyncio.sleep(0.2)  # the cancellation has reached the server's request
        return {"outcome": {"outcome": "selected", "optionId": "allow_once"}}

    client.handlers["agent/session/request_permission"] = late_click
    fake_llm.script(Reply.tool_call("write_file", {"path": "late.txt", "content": "x"}))
    _, fut = client.request_nowait(
        "agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "write it"}]}
    )
    await asyncio.wait_for(asked.wait(), 10)
    client.notify("agent/session/cancel", {"sessionId": sid})
    assert await asyncio.wait_for(fut, 5) == {"stopReason": "cancelled"}
    stopped.set()
    await asyncio.sleep(0.5)
    fake_llm.script(Reply.text("second turn"))
    assert await ask(client, sid, "hello again") == {"stopReason": "end_turn"}
    assert "second turn" in client.text(sid)
    assert not (workspace / "late.txt").exists()
    await client.close()
    log = await client.stderr_text()
    assert "Traceback" not in log and "InvalidStateError" not in log, log
