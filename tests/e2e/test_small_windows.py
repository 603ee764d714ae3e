"""Small windows through the real server (issue 13): long turns in 2k and 4k windows end normally, every
request fits, num_ctx never changes, and a 100 KB write or MCP result does not break the session."""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import (
    RoutingFakeLLM,
    answer_permissions,
    assert_history_consistent,
    install_apply_edit,
    is_summarizer,
    prompt,
    request_tokens,
)
from tests.fakes.fake_llm import Reply
from tests.lsp_client import LspClient

MCP_SERVER = str(Path(__file__).parent / "small_window_mcp.py")
FINAL = "All files are read. Each module defines a handful of small helper functions; nothing is broken."


@pytest.fixture
def routing_llm() -> Iterator[RoutingFakeLLM]:
    with RoutingFakeLLM() as fake:
        yield fake


def write_modules(root: Path, count: int, seed: int) -> list[int]:
    """Python modules of 2,000-6,000 characters, with functions (so they have an outline)."""
    rng = random.Random(seed)
    sizes = []
    for i in range(count):
        target = rng.randint(2000, 6000)
        parts: list[str] = [f'"""Module {i}: helpers for stage {i}."""\n']
        n = 0
        while sum(map(len, parts)) < target:
            n += 1
            parts.append(
                f"\n\ndef helper_{i}_{n}(value: int) -> int:\n"
                f'    """Scale the value for step {n} of stage {i}."""\n'
                f"    result = value * {n} + {i}\n"
                f"    return result % {97 + n}\n"
            )
        text = "".join(parts)[:target]
        (root / f"mod{i:02d}.py").write_text(text)
        sizes.append(len(text))
    return sizes


def reading_responder(count: int) -> tuple[Any, list[int]]:
    """Reads mod00..mod{count-1}, one per round, then answers; counts the rounds it saw."""
    rounds = [0]

    def respond(body: dict[str, Any]) -> Reply | None:
        if is_summarizer(body):
            return Reply.text("Summary: helper functions.")
        n = rounds[0]
        rounds[0] += 1
        if n < count:
            return Reply.tool_call("read_file", {"path": f"mod{n:02d}.py"})
        return Reply.text(FINAL)

    return respond, rounds


def check_requests(fake: RoutingFakeLLM, window: int, request_text: str, since: int = 0) -> list[dict[str, Any]]:
    """The agent's requests from `since` on: under the window, same num_ctx, consistent, the task still there."""
    bodies = [r.json for r in fake.agent_requests()[since:]]
    sizes = [request_tokens(b) for b in bodies]
    assert max(sizes) < window, f"a request was over the {window}-token window: {sizes}"
    reported = [b.get("options", {}).get("num_ctx") for b in bodies]
    # Sent every time, within the window, and never shrinking (a changed num_ctx reloads the model).
    assert all(isinstance(n, int) and n <= window for n in reported), reported
    assert reported == sorted(reported), reported
    for body in bodies:
        messages = body["messages"]
        assert_history_consistent(messages)
        # The model never loses the task it is working on.
        users = [str(m["content"]) for m in messages if m["role"] == "user"]
        assert any(u.startswith(request_text) for u in users), [u[:200] for u in users]
    return bodies


async def run_reading_turn(
    start_server: Start, workspace: Path, fake: RoutingFakeLLM, window: int, rounds: int
) -> None:
    fake.models[0].context_length = window
    sizes = write_modules(workspace, rounds, seed=window)
    assert min(sizes) >= 2000 and max(sizes) <= 6000
    respond, seen = reading_responder(rounds)
    fake.responder = respond
    # agent.max_rounds defaults to 20; a 40-read turn needs more (a setting, not a window matter).
    client = await start_server(workspace, {**llm_options(fake), "agent": {"maxRounds": rounds + 10}})
    sid = await new_session(client, workspace)
    question = f"Read the {rounds} modules one by one and tell me what they hold."
    assert await prompt(client, sid, question) == "end_turn", await client.stderr_text()
    assert seen[0] == rounds + 1  # every read happened, then the answer

    bodies = check_requests(fake, window, question)
    assert {b["options"]["num_ctx"] for b in bodies} == {window}  # the window's own size, from the first request
    # The fixed part fits: the lean set (7 tools) or fewer, the same in every round (a stable prompt prefix).
    tool_sets = {tuple(t["function"]["name"] for t in b.get("tools") or []) for b in bodies}
    assert len(tool_sets) == 1 and "read_file" in next(iter(tool_sets)) and len(next(iter(tool_sets))) <= 7
    # Compaction works in steps: many requests extend the previous one verbatim (the server's prompt cache).
    kept = sum(1 for a, b in itertools.pairwise(bodies) if b["messages"][: len(a["messages"])] == a["messages"])
    assert kept >= len(bodies) // 3, (
        f"the prompt prefix changed in {len(bodies) - 1 - kept} of {len(bodies) - 1} rounds"
    )
    if os.environ.get("SMALL_WINDOW_FIGURES"):
        sizes = [request_tokens(b) for b in bodies]
        print(
            f"\nwindow {window}: {len(bodies)} requests, biggest {max(sizes)} tokens, prefix kept {kept}/{len(bodies) - 1}"
        )
    # Each read came back whole or as a page that says how to get the rest.
    results = [m["content"] for m in bodies[-1]["messages"] if m["role"] == "tool"]
    assert results, "the latest read must be in the last request"
    paged = [b for b in bodies if "call read_file with start_line=" in str(b["messages"][-1].get("content"))]
    assert paged, "files bigger than the page budget must come back as pages"
    # Older results of the turn were compressed, and the model was told how to get them back.
    told = "\n".join(str(m.get("content")) for m in bodies[-1]["messages"])
    assert "to fit the context window" in told or "Summary of the earlier part" in told
    thoughts = client.text(sid, "agent_thought_chunk")
    assert "context compacted" in thoughts
    assert FINAL in client.text(sid)

    # The session stays usable: the next prompt works too.
    fake.responder = lambda body: None if is_summarizer(body) else Reply.text("Yes, all of them.")
    before = len(fake.agent_requests())
    assert await prompt(client, sid, "Did you read them all?") == "end_turn"
    check_requests(fake, window, "Did you read them all?", since=before)


async def test_forty_reads_in_a_4k_window_end_the_turn(
    start_server: Start, workspace: Path, routing_llm: RoutingFakeLLM
) -> None:
    await run_reading_turn(start_server, workspace, routing_llm, 4096, 40)


async def test_ten_reads_in_a_2k_window_end_the_turn(
    start_server: Start, workspace: Path, routing_llm: RoutingFakeLLM
) -> None:
    await run_reading_turn(start_server, workspace, routing_llm, 2048, 10)


async def test_a_100_kb_write_leaves_the_session_usable(
    start_server: Start, workspace: Path, routing_llm: RoutingFakeLLM
) -> None:
    window = 8192
    routing_llm.models[0].context_length = window
    content = "".join(f"row {n}: {'x' * 40}\n" for n in range(2400))  # about 100 KB
    assert len(content) > 100_000
    routing_llm.script(
        Reply.tool_call("write_file", {"path": "data.txt", "content": content}),
        Reply.text("Wrote data.txt."),
        Reply.text("It has 2400 rows."),
    )
    client = await start_server(workspace, llm_options(routing_llm))
    answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Write the data file.") == "end_turn", await client.stderr_text()
    assert (workspace / "data.txt").read_text() == content
    check_requests(routing_llm, window, "Write the data file.")
    assert await prompt(client, sid, "How many rows?") == "end_turn", await client.stderr_text()
    bodies = check_requests(routing_llm, window, "How many rows?", since=2)
    assert len(bodies) == 1
    calls = [c for m in bodies[-1]["messages"] for c in m.get("tool_calls") or []]
    stub = str(calls[0]["function"]["arguments"])
    assert "102" in stub or "characters" in stub, stub  # the stub says what was written: its size and hash
    assert "sha256" in stub
    # The editor saw the whole call.
    starts = [u for u in client.updates(sid) if u["sessionUpdate"] == "tool_call"]
    assert starts[0]["rawInput"]["content"] == content


async def _offered(client: LspClient, fake: RoutingFakeLLM, sid: str, name: str) -> None:
    """MCP servers start in the background: prompt until the tool is offered."""
    for _ in range(40):
        fake.script(Reply.text("ok"))
        await prompt(client, sid, "hello")
        tools = [t["function"]["name"] for t in fake.chat_requests()[-1].json.get("tools", [])]
        if name in tools:
            return
        await asyncio.sleep(0.25)
    raise AssertionError(f"{name} was never offered: {await client.stderr_text()}")


async def test_a_100_kb_mcp_result_is_paged_and_the_rest_is_reachable(
    start_server: Start, workspace: Path, routing_llm: RoutingFakeLLM
) -> None:
    window = 8192
    routing_llm.models[0].context_length = window
    client = await start_server(workspace, llm_options(routing_llm))
    answer_permissions(client, "allow_once")
    server = {"name": "big", "command": sys.executable, "args": [MCP_SERVER], "env": []}
    sid = (await client.request("agent/session/new", {"cwd": str(workspace), "mcpServers": [server]}))["sessionId"]
    await _offered(client, routing_llm, sid, "big__report")

    def respond(body: dict[str, Any]) -> Reply | None:
        messages = body["messages"]
        last = messages[-1]
        if last["role"] == "user":
            return Reply.tool_call("big__report", {"kb": 100})
        text = str(last["content"])
        if "read_output" in text and "start_line=" in text and "read_output" not in str(messages[-2]):
            ident = text.split("id='")[1].split("'")[0]
            line = int(text.split("start_line=")[-1].split("]")[0].split(" ")[0])
            return Reply.tool_call("read_output", {"id": ident, "start_line": line})
        return Reply.text("The report is nominal.")

    routing_llm.responder = respond
    before = len(routing_llm.agent_requests())
    assert await prompt(client, sid, "Get the 100 KB report.") == "end_turn", await client.stderr_text()
    bodies = check_requests(routing_llm, window, "Get the 100 KB report.", since=before)
    first_page = str(bodies[-2]["messages"][-1]["content"])
    assert first_page.startswith("report line 1:") and "call read_output" in first_page
    second_page = str(bodies[-1]["messages"][-1]["content"])
    assert "report line" in second_page and "report line 1:" not in second_page
    # The editor's card shows the whole result.
    done = [u for u in client.updates(sid) if u["sessionUpdate"] == "tool_call_update" and u.get("status")]
    whole = [u for u in done if sum(len(c["content"].get("text", "")) for c in u.get("content") or []) > 100_000]
    assert whole, "the client must receive the full MCP result"

    routing_llm.responder = lambda body: Reply.text("Still nominal.")
    before = len(routing_llm.agent_requests())
    assert await prompt(client, sid, "Anything else?") == "end_turn"
    check_requests(routing_llm, window, "Anything else?", since=before)


# --- provider detection: an Ollama anywhere gets the native API, where num_ctx can be set ---------------------


@pytest.mark.parametrize("suffix", ["", "/v1"])
async def test_ollama_on_another_port_gets_the_native_api_with_num_ctx(
    start_server: Start, workspace: Path, routing_llm: RoutingFakeLLM, suffix: str
) -> None:
    routing_llm.models[0].context_length = 4096
    routing_llm.script(Reply.text("hello"))
    # No llm.provider: the server is asked (GET /api/version), not guessed from its port (not 11434 here).
    options = {"llm": {"baseUrl": routing_llm.url + suffix, "model": routing_llm.models[0].name}}
    client = await start_server(workspace, options)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "hi") == "end_turn", await client.stderr_text()
    chats = routing_llm.chat_requests()
    assert [r.path for r in chats] == ["/api/chat"]
    assert chats[0].json["options"]["num_ctx"] == 4096
    assert any(r.path == "/api/version" for r in routing_llm.requests)


async def test_an_openai_compatible_server_keeps_the_openai_api(
    start_server: Start, workspace: Path, routing_llm: RoutingFakeLLM
) -> None:
    routing_llm.flavor = "openai"  # /api/* answers 404, as llama.cpp and LM Studio do
    routing_llm.script(Reply.text("hello"))
    options = {"llm": {"baseUrl": routing_llm.url + "/v1", "model": routing_llm.models[0].name}}
    client = await start_server(workspace, options)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "hi") == "end_turn", await client.stderr_text()
    assert [r.path for r in routing_llm.chat_requests()] == ["/v1/chat/completions"]


async def test_a_prompt_bigger_than_the_window_is_cut_for_the_model_but_kept_whole(
    start_server: Start, workspace: Path, routing_llm: RoutingFakeLLM
) -> None:
    window = 4096
    routing_llm.models[0].context_length = window
    pasted = "".join(
        f"2026-11-22 12:00:{n % 60:02d} worker[{n}] request failed: timeout after 30s\n" for n in range(1600)
    )
    question = "Why does this fail?\n" + pasted
    assert len(question) > 100_000
    routing_llm.responder = lambda body: Reply.text("The upstream service times out.")
    client = await start_server(workspace, llm_options(routing_llm))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, question) == "end_turn", await client.stderr_text()
    sent = routing_llm.agent_requests()[-1].json
    assert request_tokens(sent) < window
    user = [m for m in sent["messages"] if m["role"] == "user"][-1]
    assert user["content"].startswith("Why does this fail?") and "too big for the context window" in user["content"]
    # The next prompt works (the session is not stuck over its window), and the transcript keeps the whole text.
    assert await prompt(client, sid, "And the fix?") == "end_turn", await client.stderr_text()
    assert request_tokens(routing_llm.agent_requests()[-1].json) < window
    await client.close()
    second = await start_server(workspace, llm_options(routing_llm))
    await second.request("agent/session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
    replayed = [u["content"]["text"] for u in second.updates(sid) if u["sessionUpdate"] == "user_message_chunk"]
    assert replayed[0] == question


# --- the announcement detector: a model that announces its next step and stops gets one nudge -----------------


async def test_an_answer_announcing_a_read_of_a_dotted_file_name_gets_a_nudge(
    start_server: Start, workspace: Path, routing_llm: RoutingFakeLLM
) -> None:
    (workspace / "settings.py").write_text("PORT = 8080\n")
    routing_llm.script(
        Reply.text("The port is set in the settings. I will now read settings.py and then tell you the value."),
        Reply.tool_call("read_file", {"path": "settings.py"}),
        Reply.text("The port is 8080 (settings.py, line 1)."),
    )
    client = await start_server(workspace, llm_options(routing_llm))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Which port does the app use?") == "end_turn", await client.stderr_text()
    bodies = [r.json for r in routing_llm.agent_requests()]
    assert len(bodies) == 3  # the announcement did not end the turn
    nudge = bodies[1]["messages"][-1]
    assert nudge["role"] == "user" and "Continue now" in nudge["content"]
    assert "The port is 8080" in client.text(sid)
