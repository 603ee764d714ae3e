"""Input that used to end the server or leave a request unanswered, through the real server process over stdio.

Issue 12 items 4 (framing), 5 (messages with an id that got no answer), 6 (a long search froze the server)
and 9 (wrong error codes, silent acceptance). After each case the server still runs a normal prompt.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import new_session
from tests.e2e.helpers import prompt_params, tool_results
from tests.fakes.fake_llm import Delay, FakeLLMServer, Reply, Text
from tests.lsp_client import LspClient, RpcError


def record_unaddressed(client: LspClient) -> list[dict[str, Any]]:
    """Answers the server sends with id null (framing and parse errors), in order."""
    seen: list[dict[str, Any]] = []
    original = client._dispatch

    def dispatch(msg: dict[str, Any]) -> None:
        if "method" not in msg and msg.get("id") is None:
            seen.append(msg)
        original(msg)

    client._dispatch = dispatch  # type: ignore[method-assign]
    return seen


async def answer_to(client: LspClient, msg_id: Any, body: bytes) -> Any:
    """Send a raw body as one framed message; return the result or the RpcError answering `msg_id`."""
    fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    client._pending[msg_id] = fut
    client.send_raw(body)
    try:
        return await asyncio.wait_for(fut, 15)
    except RpcError as exc:
        return exc


async def still_serving(client: LspClient, fake_llm: FakeLLMServer, workspace: Path) -> None:
    sid = await new_session(client, workspace)
    fake_llm.script(Reply.text("still here"))
    assert await client.request("agent/session/prompt", prompt_params(sid, "hi")) == {"stopReason": "end_turn"}
    assert client.text(sid).endswith("still here")
    assert client.proc.returncode is None


def request(msg_id: Any, method: str, params: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode()


async def wait_count(client: LspClient, items: list[Any], n: int) -> None:
    await client.wait_for(lambda: len(items) >= n, timeout=15)


# --- item 4: framing -------------------------------------------------------------------------------------------


async def test_a_header_line_over_a_mebibyte_does_not_end_the_server(
    server: LspClient, fake_llm: FakeLLMServer, workspace: Path
) -> None:
    errors = record_unaddressed(server)
    assert server.proc.stdin is not None
    # One line of 2 MiB, ended; then one of 3 MiB whose end comes in a later write; each before a real message.
    server.proc.stdin.write(b"X-Junk: " + b"x" * (2 << 20) + b"\r\n\r\n")
    assert (await server.request("agent/session/list", {}))["sessions"] == []
    server.proc.stdin.write(b"y" * (3 << 20))
    await server.proc.stdin.drain()
    server.proc.stdin.write(b"\r\n\r\n")
    assert (await server.request("agent/session/list", {}))["sessions"] == []
    await wait_count(server, errors, 2)
    assert all(e["error"]["code"] == -32600 for e in errors)
    assert "header line longer" in errors[0]["error"]["message"]
    await still_serving(server, fake_llm, workspace)


BAD_HEADERS = [
    b"Content-Length: -5\r\n\r\n",
    b"Content-Length: lots\r\n\r\n",
    b"Content-Length: 99999999999999999999\r\n\r\n",
    b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n",
    b"Content-Length: 0\r\n\r\n",
    b"Content-Length: 1\r\nContent-Length: x\r\n\r\n",  # the last one counts
]


async def test_a_bad_content_length_is_answered_and_reading_resumes(
    server: LspClient, fake_llm: FakeLLMServer, workspace: Path
) -> None:
    errors = record_unaddressed(server)
    assert server.proc.stdin is not None
    for n, header in enumerate(BAD_HEADERS, start=1):
        # The frame's body follows with no newline: the next real header is glued to it.
        server.proc.stdin.write(header + request(900, "agent/session/list", {}))
        assert (await server.request("agent/session/list", {}))["sessions"] == []
        await wait_count(server, errors, n)
        assert errors[-1]["error"]["code"] == -32600, header
    # No Content-Length at all: nothing to answer, but the next message is read.
    server.proc.stdin.write(b"Content-Type: application/json\r\n\r\n" + request(901, "agent/session/list", {}))
    assert (await server.request("agent/session/list", {}))["sessions"] == []
    await still_serving(server, fake_llm, workspace)


async def test_bodies_that_are_not_utf8_or_cut_short_get_parse_errors(
    server: LspClient, fake_llm: FakeLLMServer, workspace: Path
) -> None:
    errors = record_unaddressed(server)
    server.send_raw(b'{"jsonrpc": "2.0", "id": 5, "method": "agent/session/list", "params": {"x": "\xff\xfe"}}')
    assert server.proc.stdin is not None
    body = request(6, "agent/session/list", {})
    server.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % (len(body) - 10) + body)  # 10 bytes left over
    await wait_count(server, errors, 2)
    assert [e["error"]["code"] for e in errors] == [-32700, -32700]
    await still_serving(server, fake_llm, workspace)


# --- item 5: every message with an id gets exactly one answer ---------------------------------------------------


async def test_requests_the_parser_cannot_take_are_answered_with_their_id(
    server: LspClient, fake_llm: FakeLLMServer, workspace: Path
) -> None:
    deep = request(11, "agent/session/list", {"cwd": "@"}).replace(b'"@"', b"[" * 1000 + b"]" * 1000)
    err = await answer_to(server, 11, deep)
    assert isinstance(err, RpcError) and err.code == -32700 and "nested" in err.message

    medium = request(12, "agent/session/list", {"cwd": "@"}).replace(b'"@"', b"[" * 200 + b"]" * 200)
    err = await answer_to(server, 12, medium)
    assert isinstance(err, RpcError) and err.code == -32600 and "nested deeper" in err.message

    huge_number = request(13, "agent/_index/search", {"query": "x", "limit": 7}).replace(b"7", b"9" * 5000)
    err = await answer_to(server, 13, huge_number)
    assert isinstance(err, RpcError) and err.code == -32700 and "5000 digits" in err.message

    string_id = request("abc", "agent/session/list", {"cwd": "@"}).replace(b'"@"', b"[" * 3000 + b"]" * 3000)
    err = await answer_to(server, "abc", string_id)
    assert isinstance(err, RpcError) and err.code == -32700
    await still_serving(server, fake_llm, workspace)


async def test_a_notification_sent_with_an_id_is_answered(
    server: LspClient, fake_llm: FakeLLMServer, workspace: Path
) -> None:
    for n, method in enumerate(["$/cancelRequest", "initialized", "exit", "textDocument/didOpen"]):
        params = {"id": 1} if method == "$/cancelRequest" else {}
        answer = await answer_to(server, 20 + n, request(20 + n, method, params))
        assert isinstance(answer, RpcError) and answer.code == -32600 and "notification" in answer.message
    # A second initialize would replace the settings and every session.
    again = {"processId": None, "rootUri": None, "capabilities": {}}
    answer = await answer_to(server, 28, request(28, "initialize", again))
    assert isinstance(answer, RpcError) and answer.code == -32600 and "already initialized" in answer.message
    # Our own notification name is not typed: pygls runs it as a request, and answers null.
    assert await answer_to(server, 29, request(29, "agent/session/cancel", {"sessionId": "sess_x"})) is None
    await still_serving(server, fake_llm, workspace)


async def test_batches_get_one_answer_per_id(server: LspClient, fake_llm: FakeLLMServer, workspace: Path) -> None:
    errors = record_unaddressed(server)
    loop = asyncio.get_running_loop()
    futs = {i: loop.create_future() for i in (31, 32)}
    server._pending.update(futs)
    batch = [json.loads(request(31, "agent/session/list", {})), json.loads(request(32, "agent/_models/list", {}))]
    server.send_raw(json.dumps(batch).encode())
    for fut in futs.values():
        with pytest.raises(RpcError) as err:
            await asyncio.wait_for(fut, 15)
        assert err.value.code == -32600 and "batch" in err.value.message
    server.send_raw(json.dumps([{"jsonrpc": "2.0", "method": "initialized", "params": {}}]).encode())
    server.send_raw(b"[]")
    await wait_count(server, errors, 2)
    assert [e["error"]["code"] for e in errors] == [-32600, -32600]
    await still_serving(server, fake_llm, workspace)


# --- item 9: wrong params are -32602, never -32603; unknown models are refused ------------------------------------


WRONG_PARAMS = [
    ("agent/_index/search", b'{"query": "x", "limit": NaN}'),
    ("agent/_index/search", b'{"query": "x", "limit": "10"}'),
    ("agent/_index/search", b'{"query": ["x"]}'),
    ("agent/_models/select", b'{"model": null}'),
    ("agent/_models/select", b'{"model": 5}'),
    ("agent/_permissions/revoke", b'{"id": {}}'),
    ("agent/_permissions/list", b'{"cwd": 5}'),
    ("agent/_models/list", b"[1, 2]"),
    ("agent/session/list", b'"a string"'),
    ("agent/session/prompt", b'{"sessionId": 42, "prompt": []}'),
    ("agent/_checkpoints/list", b'{"sessionId": []}'),
    ("agent/session/new", b'{"cwd": "relative/dir", "mcpServers": []}'),
    ("agent/session/list", b'{"cwd": "/tmp/a\\u0000b"}'),
    ("agent/_permissions/list", b'{"cwd": "/tmp/\\ud800"}'),
    ("agent/session/prompt", b'{"sessionId": "s", "prompt": [{"type": "text", "text": "\\udc00"}]}'),
]


async def test_wrong_param_types_are_invalid_params(server: LspClient) -> None:
    for n, (method, params) in enumerate(WRONG_PARAMS):
        body = b'{"jsonrpc": "2.0", "id": %d, "method": "%s", "params": %s}' % (40 + n, method.encode(), params)
        err = await answer_to(server, 40 + n, body)
        assert isinstance(err, RpcError), (method, params, err)
        assert err.code == -32602, (method, params, err.message)
        assert method in err.message


async def test_selecting_a_model_the_server_does_not_list_is_refused(
    server: LspClient, fake_llm: FakeLLMServer, workspace: Path
) -> None:
    with pytest.raises(RpcError) as err:
        await server.request("agent/_models/select", {"model": "no-such-model"})
    assert err.value.code == -32602
    assert "no-such-model" in err.value.message and fake_llm.models[0].name in err.value.message
    listed = await server.request("agent/_models/list", {})
    assert listed["current"] == fake_llm.models[0].name  # the refused choice did not stick
    assert (await server.request("agent/_models/select", {"model": fake_llm.models[0].name}))["current"]
    await still_serving(server, fake_llm, workspace)


# --- item 6: a long search neither freezes the server nor runs unbounded ------------------------------------------


async def test_a_chat_keeps_streaming_while_huge_searches_run(
    server: LspClient, fake_llm: FakeLLMServer, workspace: Path
) -> None:
    (workspace / "billing.py").write_text("def compute_invoice_total(lines):\n    return sum(lines)\n")
    assert (await server.request("agent/_index/start", {}))["started"] is True
    await server.wait_for(
        lambda: any(m == "$/progress" and p["value"]["kind"] == "end" for _, m, p in server.notifications), 60
    )
    sid = await new_session(server, workspace)
    pieces = [f"piece{i} " for i in range(12)]
    steps: list[Any] = []
    for piece in pieces:
        steps += [Text(piece), Delay(0.05)]
    fake_llm.script(Reply(steps=steps))
    _, prompt = server.request_nowait("agent/session/prompt", prompt_params(sid, "talk"))
    await server.wait_for(lambda: "piece0" in server.text(sid))
    # Each query is at the length limit and of the shapes that made the old parser quadratic (seconds each,
    # all of it on the event loop): the turn must stream to its end while they run.
    shapes = ["1.", "a/", "at ", "\n"]
    searches = [server.request_nowait("agent/_index/search", {"query": (s * 20_000)[:20_000]})[1] for s in shapes]
    assert await asyncio.wait_for(prompt, 30) == {"stopReason": "end_turn"}
    assert server.text(sid) == "".join(pieces)
    for fut in searches:
        assert isinstance((await asyncio.wait_for(fut, 60))["results"], list)
    hits = (await server.request("agent/_index/search", {"query": "compute_invoice_total"}))["results"]
    assert hits[0]["path"] == "billing.py"


async def test_a_long_search_query_is_shortened_and_a_huge_one_refused(
    server: LspClient, fake_llm: FakeLLMServer, workspace: Path
) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    await server.request("agent/_index/start", {})
    await server.wait_for(
        lambda: any(m == "$/progress" and p["value"]["kind"] == "end" for _, m, p in server.notifications), 60
    )
    # Past 20,000 characters a query keeps its distinctive part (issue 23); only what cannot be handled is refused.
    assert "results" in await server.request("agent/_index/search", {"query": "a" * 100_000})
    with pytest.raises(RpcError) as err:
        await server.request("agent/_index/search", {"query": "a" * 2_000_001})
    assert err.value.code == -32602 and "query" in err.value.message and "2000000" in err.value.message
    # The model's codebase_search searches the distinctive part and is told so; the turn goes on.
    sid = await new_session(server, workspace)
    fake_llm.script(Reply.tool_call("codebase_search", {"query": "b " * 15_000}), Reply.text("I will narrow it."))
    assert await server.request("agent/session/prompt", prompt_params(sid, "search")) == {"stopReason": "end_turn"}
    result = tool_results(fake_llm.chat_requests()[-1].json["messages"])[-1]
    assert "30000 characters" in result and "20000" in result, result
