"""Sessions end to end: list, load (replay in a new process), delete, titles, the CLI, long sessions in a small
window, the overflow retry, and crashes (SIGKILL mid-turn) that lose nothing that had completed."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_server.store import Store
from tests.acp_schema import validate
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import (
    RoutingFakeLLM,
    assert_history_consistent,
    is_summarizer,
    never_answer_permissions,
    prompt,
    prompt_params,
    request_tokens,
    sent_messages,
    validate_updates,
)
from tests.fakes.fake_llm import Delay, FakeLLMServer, Reply, Text
from tests.lsp_client import LspClient, RpcError


@pytest.fixture
def routing_llm() -> Iterator[RoutingFakeLLM]:
    with RoutingFakeLLM() as fake:
        yield fake


async def test_load_replays_the_history_in_a_new_process(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "a.py").write_text("print('alpha')\n")
    first = await start_server(workspace, llm_options(fake_llm))
    fake_llm.script(
        Reply(steps=[Text("Let me check. "), *Reply.tool_call("read_file", {"path": "a.py"}).steps]),
        Reply.text("It prints alpha.", pieces=3),
    )
    sid = await new_session(first, workspace)
    assert await prompt(first, sid, "What does a.py do?\nPlease be brief.") == "end_turn"
    live = [u for u in first.updates(sid) if u["sessionUpdate"] in ("tool_call", "tool_call_update")]
    await first.close()

    second = await start_server(workspace, llm_options(fake_llm))
    listed = await second.request("agent/session/list", {"cwd": str(workspace)})
    validate("ListSessionsResponse", listed)
    assert [(s["sessionId"], s["title"]) for s in listed["sessions"]] == [(sid, "What does a.py do?")]
    result = await second.request("agent/session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
    validate("LoadSessionResponse", result)
    replay = second.updates(sid)
    kinds = [u["sessionUpdate"] for u in replay]
    assert kinds == [
        "user_message_chunk",
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
        "session_info_update",  # then the title and the context meter as they are now
        "usage_update",
    ]
    assert replay[0]["content"]["text"] == "What does a.py do?\nPlease be brief."
    assert replay[1]["content"]["text"] == "Let me check. "
    assert replay[4]["content"]["text"] == "It prints alpha."
    assert replay[5]["title"] == "What does a.py do?" and 0 < replay[6]["used"] < replay[6]["size"]
    call, done = replay[2], replay[3]
    assert call["toolCallId"] == done["toolCallId"] == live[0]["toolCallId"]
    assert call["title"] == "Read a.py" and call["kind"] == "read" and call["rawInput"] == {"path": "a.py"}
    assert done["status"] == "completed" and "print('alpha')" in done["content"][0]["content"]["text"]
    validate_updates(second)

    # The loaded session goes on with the whole history.
    fake_llm.script(Reply.text("Yes."))
    assert await prompt(second, sid, "Sure?") == "end_turn"
    messages = sent_messages(fake_llm, 2)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert_history_consistent(messages)


async def test_delete_and_titles(start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    client = await start_server(workspace, llm_options(fake_llm))
    long_line = "Refactor the parser so that it " + "handles nested brackets " * 5
    fake_llm.default_reply = Reply.text("ok")
    ids = []
    for text in ("\n\n  Fix the login bug  \nmore details", long_line):
        sid = await new_session(client, workspace)
        await prompt(client, sid, text)
        ids.append(sid)
    listed = (await client.request("agent/session/list", {}))["sessions"]
    titles = {s["sessionId"]: s["title"] for s in listed}
    assert titles[ids[0]] == "Fix the login bug"
    assert titles[ids[1]].startswith("Refactor the parser") and len(titles[ids[1]]) <= 60
    assert titles[ids[1]].endswith("…")
    assert [s["sessionId"] for s in listed] == [ids[1], ids[0]]  # newest first

    assert await client.request("agent/session/delete", {"sessionId": ids[0]}) == {}
    listed = (await client.request("agent/session/list", {}))["sessions"]
    assert [s["sessionId"] for s in listed] == [ids[1]]
    with pytest.raises(RpcError) as err:
        await client.request("agent/session/load", {"sessionId": ids[0], "cwd": str(workspace), "mcpServers": []})
    assert ids[0] in err.value.message
    with pytest.raises(RpcError):
        await client.request("agent/session/prompt", prompt_params(ids[0], "hello?"))
    with Store(tmp_path / "agent.db") as store:
        assert [s.id for s in store.list_sessions()] == [ids[1]]


async def test_cli_lists_the_sessions_of_the_server(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    client = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(client, workspace)
    fake_llm.script(Reply.text("ok"))
    await prompt(client, sid, "Fix the login bug")
    env = {**os.environ, "AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent_server", "sessions", "list", "--json",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env, cwd=tmp_path,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, (out + err).decode()
    rows = json.loads(out)
    assert [(r["sessionId"], r["title"], r["messages"]) for r in rows] == [(sid, "Fix the login bug", 2)]
    assert rows[0]["cwd"] == str(workspace.resolve())


# --- long sessions in a small window ---------------------------------------------------------------------------

WINDOW = 4096


async def test_long_session_stays_inside_a_small_window(
    start_server: Start, workspace: Path, routing_llm: RoutingFakeLLM
) -> None:
    routing_llm.models[0].context_length = WINDOW
    for i in range(12):
        body = "\n".join(f"# file {i} line {n}: lorem ipsum dolor sit amet" for n in range(12))
        (workspace / f"mod{i}.py").write_text(body + "\n")

    def respond(body: dict[str, Any]) -> Reply | None:
        if is_summarizer(body):
            return Reply.text("Summary: a module with numbered lorem ipsum lines.")
        # Each turn N reads mod{N} and mod{N+5}, then answers.
        messages = body["messages"]
        start = max(i for i, m in enumerate(messages) if m["role"] == "user" and m["content"].startswith("Question"))
        n = int(messages[start]["content"].split()[1].rstrip(":"))
        reads = sum(1 for m in messages[start:] if m["role"] == "tool")
        if reads < 2:
            return Reply.tool_call("read_file", {"path": f"mod{(n + 5 * reads) % 12}.py"})
        return Reply.text(f"Answer number {n}: the files hold lorem ipsum.")

    routing_llm.responder = respond
    # The file sizes and turn count are tuned so compaction lands at a turn boundary with the full fixed prompt;
    # the lean one (~560 tokens smaller) moves it into turn 7, where the turn's first read is shrunk instead.
    client = await start_server(workspace, {**llm_options(routing_llm), "agent": {"leanPrompt": "off"}})
    sid = await new_session(client, workspace)
    for turn in range(8):
        assert await prompt(client, sid, f"Question {turn}: what is in the next modules?") == "end_turn"

    requests = routing_llm.agent_requests()
    assert len(requests) == 8 * 3
    sizes = [request_tokens(r.json) for r in requests]
    assert max(sizes) < WINDOW, f"a request was over the window: {sizes}"
    num_ctx = {r.json.get("options", {}).get("num_ctx") for r in requests}
    assert num_ctx == {WINDOW}, f"num_ctx must be sent on every request and stay put: {num_ctx}"

    last = requests[-1].json["messages"]
    # The newest exchanges are verbatim; older ones live on in a summary right after the system prompt.
    assert last[-1]["role"] == "tool" and "file 0 line 11:" in last[-1]["content"]  # mod12 % 12, whole
    assert last[-3]["role"] == "tool" and "file 7 line 11:" in last[-3]["content"]
    assert last[-5] == {"role": "user", "content": "Question 7: what is in the next modules?"}
    assert last[0]["role"] == "system"
    summaries = [m for m in last[1:] if m["role"] == "system"]
    assert len(summaries) == 1 and last[1] is summaries[0], [m["role"] for m in last]
    assert "mod" in summaries[0]["content"]
    # The first question is gone as a message but carried by the summary.
    assert not any(m["role"] == "user" and m["content"].startswith("Question 0") for m in last)
    assert "Question 0" in summaries[0]["content"]
    assert_history_consistent(last)
    thoughts = client.text(sid, "agent_thought_chunk")
    assert "context compacted" in thoughts
    usage = [u for u in client.updates(sid) if u["sessionUpdate"] == "usage_update"]
    assert usage and all(u["size"] == WINDOW and u["used"] <= WINDOW for u in usage)
    validate_updates(client)


async def test_overflow_error_compacts_and_retries_once(
    start_server: Start, workspace: Path, routing_llm: RoutingFakeLLM
) -> None:
    # The user set 16k but the server runs with 6k (llama.cpp -c 6144): only its overflow error tells the truth.
    for i in range(3):
        (workspace / f"log{i}.txt").write_text(
            "".join(f"log {i} line {n}: something happened here\n" for n in range(400))
        )
    for i in range(3):
        routing_llm.script(Reply.tool_call("read_file", {"path": f"log{i}.txt"}), Reply.text(f"read log {i}"))

    def overflow(tokens: int) -> Reply:
        return Reply.llamacpp_error(
            400,
            "the request exceeds the available context size, try increasing it",
            type="exceed_context_size_error",
            n_prompt_tokens=tokens,
            n_ctx=6144,
        )

    routing_llm.responder = lambda body: Reply.text("Summary.") if is_summarizer(body) else None
    client = await start_server(workspace, llm_options(routing_llm, provider="openai", contextLength=16384))
    sid = await new_session(client, workspace)
    for i in range(3):
        assert await prompt(client, sid, f"read log{i}.txt") == "end_turn"
    size = request_tokens(routing_llm.agent_requests()[-1].json)
    assert size > 6144, f"the scenario needs a history over the server's real window, got {size}"

    routing_llm.script(overflow(size), Reply.text("Answered after compaction."))
    assert await prompt(client, sid, "now compare the logs") == "end_turn"
    assert client.text(sid).endswith("Answered after compaction.")
    requests = routing_llm.agent_requests()
    before, after = requests[-2].json, requests[-1].json
    assert before["messages"][-1] == after["messages"][-1] == {"role": "user", "content": "now compare the logs"}
    assert request_tokens(after) < 6144 < request_tokens(before), "the retry does not fit the server's window"
    assert_history_consistent(after["messages"])
    assert "overflowed" in client.text(sid, "agent_thought_chunk")

    # Overflowing again in the same turn is not retried forever: the user gets a clear error, once.
    routing_llm.script(overflow(7000), overflow(7000), overflow(7000))
    with pytest.raises(RpcError) as err:
        await prompt(client, sid, "again")
    assert "context" in err.value.message.lower()
    assert len(routing_llm.agent_requests()) == len(requests) + 2


# --- crashes --------------------------------------------------------------------------------------------------


async def _kill(client: LspClient) -> None:
    """SIGKILL the server; its client then has nothing left to close."""
    os.kill(client.proc.pid, signal.SIGKILL)
    await client.proc.wait()
    client._reader.cancel()

    async def closed() -> None:
        return None

    client.close = closed  # type: ignore[method-assign]


def _turn_script(i: int) -> list[Reply]:
    return [
        Reply(steps=[Delay(0.03), *Reply.tool_call("read_file", {"path": f"f{i}.txt"}).steps]),
        Reply(steps=[s for k in range(6) for s in (Text(f"answer {i} part {k}. "), Delay(0.02))]),
    ]


def _expected(i: int) -> list[tuple[str, str]]:
    return [
        ("user", f"task {i}"),
        ("assistant", ""),
        ("tool", f"f{i}.txt (lines 1-1 of 1)\n1\tcontents of file {i}"),
        ("assistant", "".join(f"answer {i} part {k}. " for k in range(6))),
    ]


async def test_sigkill_mid_turn_loses_nothing_that_completed(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    rng = random.Random(20251122)
    kills = 8
    for i in range(2 * kills + 4):
        (workspace / f"f{i}.txt").write_text(f"contents of file {i}\n")
    db = tmp_path / "agent.db"
    sid: str | None = None
    completed: list[int] = []
    attempted: list[int] = []
    turn = 0
    for life in range(kills + 1):
        client = await start_server(workspace, llm_options(fake_llm))
        if sid is None:
            sid = await new_session(client, workspace)
        else:
            # The session comes back from the store in a new process, with a history the model accepts.
            await client.request("agent/session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
        # One complete turn, then one that is killed at a random point (the last life just completes).
        for _ in range(1 if life < kills else 2):
            fake_llm.script(*_turn_script(turn))
            attempted.append(turn)
            assert await prompt(client, sid, f"task {turn}") == "end_turn"
            assert_history_consistent(sent_messages(fake_llm, -1))
            completed.append(turn)
            turn += 1
        if life == kills:
            await client.close()
            break
        fake_llm.script(*_turn_script(turn))
        attempted.append(turn)
        client.request_nowait("agent/session/prompt", prompt_params(sid, f"task {turn}"))
        await asyncio.sleep(rng.uniform(0.0, 0.25))
        await _kill(client)
        fake_llm._queue.clear()
        turn += 1

    with Store(db) as store:
        transcript = store.transcript(sid)
    stored = [(m.role, m.content) for m in transcript]
    by_turn: dict[int, list[tuple[str, str]]] = {}
    current = -1
    for role, content in stored:
        if role == "user" and content.startswith("task "):
            current = int(content.split()[1])
        elif role == "user":
            continue  # an agent note
        assert current >= 0, f"a message before any user message: {stored}"
        by_turn.setdefault(current, []).append((role, content))
    assert sorted(by_turn) == sorted(set(by_turn)), "a turn's user message was stored twice"
    for i in completed:
        assert by_turn.get(i) == _expected(i), f"turn {i}: {by_turn.get(i)}"
    for i in set(attempted) - set(completed):
        got = by_turn.get(i, [])
        # A killed turn keeps a prefix of what it would have stored: whole messages, none twice.
        assert got == _expected(i)[: len(got)], f"killed turn {i}: {got}"
    user_rows = [c for r, c in stored if r == "user" and c.startswith("task ")]
    assert len(user_rows) == len(set(user_rows))

    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        ids = [r[0] for r in conn.execute("SELECT id FROM messages WHERE session_id = ? ORDER BY id", (sid,))]
        assert len(ids) == len(stored) == len(set(ids))
    finally:
        conn.close()


async def test_kill_during_a_permission_prompt_leaves_a_usable_session(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    first = await start_server(workspace, llm_options(fake_llm))
    asked = never_answer_permissions(first)
    fake_llm.script(Reply.tool_call("write_file", {"path": "n.md", "content": "x"}))
    sid = await new_session(first, workspace)
    first.request_nowait("agent/session/prompt", prompt_params(sid, "write n.md"))
    await first.wait_for(lambda: bool(asked))
    await _kill(first)

    second = await start_server(workspace, llm_options(fake_llm))
    await second.request("agent/session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
    replay = second.updates(sid)
    call = next(u for u in replay if u["sessionUpdate"] == "tool_call")
    ends = [u for u in replay if u["sessionUpdate"] == "tool_call_update" and u["toolCallId"] == call["toolCallId"]]
    assert [u["status"] for u in ends] == ["failed"], "the interrupted call must not look pending forever"
    validate_updates(second)
    fake_llm.script(Reply.text("ok"))
    assert await prompt(second, sid, "what happened?") == "end_turn"
    messages = sent_messages(fake_llm, 1)
    assert_history_consistent(messages)
    assert not (workspace / "n.md").exists()


async def test_replay_keeps_two_prompts_in_a_row_apart(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    client = await start_server(workspace, llm_options(fake_llm))
    fake_llm.script(Reply(status=400, error_body={"error": "bad request"}), Reply.text("Second answer."))
    sid = await new_session(client, workspace)
    with pytest.raises(RpcError):
        await client.request("agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "one"}]})
    assert await prompt(client, sid, "two") == "end_turn"
    await client.request("agent/session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
    replay = client.updates(sid)[-5:-2]  # the last two: the title and the meter as they are now
    users = [u for u in replay if u["sessionUpdate"] == "user_message_chunk"]
    assert [u["content"]["text"] for u in users] == ["one", "two"]
    # Consecutive chunks of one kind are one message unless their ids differ: these must differ.
    assert users[0]["messageId"] != users[1]["messageId"]
    validate_updates(client)
