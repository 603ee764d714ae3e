"""textDocument/inlineCompletion through the real server process over stdio, backed by the fake LLM."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Start
from tests.fakes.fake_llm import Delay, FakeLLMServer, FakeModel, Reply, Text
from tests.lsp_client import LspClient, RpcError

SOURCE = "def area(width, height):\n    \n\n\ndef main():\n    print(area(2, 3))\n"


def options(fake: FakeLLMServer, **completion: Any) -> dict[str, Any]:
    return {
        "llm": {"provider": "openai", "baseUrl": fake.url, "model": fake.models[0].name},
        "completion": {"debounceMs": 0, **completion},
    }


def open_doc(client: LspClient, path: Path, text: str = SOURCE) -> str:
    uri = path.as_uri()
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}
    )
    return uri


async def wait_fim(fake: FakeLLMServer, n: int = 1) -> None:
    """Until `n` fill-in-the-middle requests reached the fake (other requests, such as the /props probe, do not count)."""
    for _ in range(400):
        if len(fake.fim_requests()) >= n:
            return
        await asyncio.sleep(0.025)
    raise TimeoutError(f"expected {n} FIM requests, got {len(fake.fim_requests())}")


def inline(uri: str, line: int = 1, character: int = 4) -> dict[str, Any]:
    return {
        "textDocument": {"uri": uri},
        "position": {"line": line, "character": character},
        "context": {"triggerKind": 2},
    }


async def test_inline_completion_returns_the_middle_as_ghost_text(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.models = [FakeModel("qwen2.5-coder-1.5b")]
    fake_llm.script(Reply.text("return width * height\n\n\ndef main():\n", pieces=3))
    client = await start_server(workspace, options(fake_llm))
    init = client  # the capability is announced in the initialize answer
    uri = open_doc(client, workspace / "geo.py")
    result = await client.request("textDocument/inlineCompletion", inline(uri))
    assert result["items"] == [
        {
            "insertText": "return width * height",
            "range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 4}},
        }
    ]
    body = fake_llm.fim_requests()[-1].json
    assert "<|fim_prefix|>def area(width, height):\n    <|fim_suffix|>" in body["prompt"]
    assert init is client


async def test_server_announces_inline_completion(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    from tests.lsp_client import LspClient as Client

    client = await Client.start(env={"AGENT_SERVER_STORE__PATH": str(workspace.parent / "a.db")}, cwd=workspace.parent)
    try:
        result = await client.initialize(workspace, options(fake_llm))
        assert result["capabilities"]["inlineCompletionProvider"] in (True, {})
    finally:
        await client.close()


async def test_cancel_request_answers_cancelled_and_ends_the_generation(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.models = [FakeModel("qwen2.5-coder-1.5b")]
    fake_llm.script(Reply(steps=[Text("return"), Delay(60), Text(" width\n")]))
    client = await start_server(workspace, options(fake_llm))
    uri = open_doc(client, workspace / "geo.py")
    msg_id, answer = client.request_nowait("textDocument/inlineCompletion", inline(uri))
    await wait_fim(fake_llm)
    await asyncio.sleep(0.3)
    client.notify("$/cancelRequest", {"id": msg_id})
    try:
        await asyncio.wait_for(answer, 10)
        raise AssertionError("expected the cancelled error")
    except RpcError as exc:
        assert exc.code == -32800
    req = fake_llm.fim_requests()[0]
    assert await asyncio.to_thread(req.wait_done, 10) and req.disconnected


async def test_typing_supersedes_the_pending_suggestion(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.models = [FakeModel("qwen2.5-coder-1.5b")]
    fake_llm.script(Reply(steps=[Text("ret"), Delay(60), Text("urn 0\n")]), Reply.text("urn width * height\n"))
    client = await start_server(workspace, options(fake_llm))
    uri = open_doc(client, workspace / "geo.py")
    _, first = client.request_nowait("textDocument/inlineCompletion", inline(uri))
    await wait_fim(fake_llm)
    change = {"range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 4}}, "text": "ret"}
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [change]})
    second = await client.request("textDocument/inlineCompletion", inline(uri, 1, 7))
    assert (await asyncio.wait_for(first, 10)) == {"items": []}
    assert second["items"][0]["insertText"] == "urn width * height"
    assert "    ret<|fim_suffix|>" in fake_llm.fim_requests()[-1].json["prompt"]  # the edited text, via didChange
    assert fake_llm.fim_requests()[0].disconnected


async def test_a_model_that_cannot_fill_in_the_middle_is_reported_once(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.models = [FakeModel("llama3.2:3b", capabilities=["completion", "tools"])]
    client = await start_server(
        workspace, {**options(fake_llm), "llm": {"provider": "ollama", "baseUrl": fake_llm.url, "model": "llama3.2:3b"}}
    )
    uri = open_doc(client, workspace / "geo.py")
    for _ in range(2):
        assert (await client.request("textDocument/inlineCompletion", inline(uri))) == {"items": []}
    status = await client.request("agent/_completion/status", {})
    assert status["enabled"] is True and status["supported"] is False
    said = [
        p["message"]
        for _, m, p in client.notifications
        if m == "window/logMessage" and "inline completion" in p["message"]
    ]
    assert len(said) == 1 and "cannot fill in the middle" in said[0]
    assert fake_llm.fim_requests() == []


async def test_bad_positions_and_unknown_files_get_an_empty_answer_and_the_server_goes_on(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.models = [FakeModel("qwen2.5-coder-1.5b")]
    fake_llm.default_reply = Reply.text("return 1\n")
    client = await start_server(workspace, options(fake_llm))
    uri = open_doc(client, workspace / "geo.py")
    gone = (workspace / "missing.py").as_uri()
    assert await client.request("textDocument/inlineCompletion", inline(gone)) == {"items": []}
    far = await client.request("textDocument/inlineCompletion", inline(uri, line=999, character=999))
    assert isinstance(far["items"], list)
    ok = await client.request("textDocument/inlineCompletion", inline(uri))
    assert ok["items"][0]["insertText"] == "return 1"


async def test_a_suggestion_stops_at_the_end_of_the_function_and_the_file_still_parses(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """Issue 42: the model runs past the function and the stream stops mid-line (the token limit): what Tab would
    insert ends with the function's body, never in a dangling `def` after it."""
    import ast

    fake_llm.models = [FakeModel("qwen2.5-coder-1.5b")]
    fake_llm.script(
        Reply.text("width = max(width, 0)\n    return width * height\n\n\ndef perimeter(width, h", pieces=4),
        Reply.text("def perimeter(w, h):\n    return 2 * (w + h)\ndef volume(w, h, d):\n", pieces=3),
    )
    client = await start_server(workspace, options(fake_llm))
    uri = open_doc(client, workspace / "geo.py")
    inside = await client.request("textDocument/inlineCompletion", inline(uri))
    body = inside["items"][0]["insertText"]
    assert body == "width = max(width, 0)\n    return width * height"
    ast.parse(SOURCE.replace("    \n", "    " + body + "\n", 1))
    # At top level after the last function: one definition, not the next one's dangling header.
    end = "def area(width, height):\n    return width * height\n\n\n"
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": end}]},
    )
    top = await client.request("textDocument/inlineCompletion", inline(uri, line=4, character=0))
    suggestion = top["items"][0]["insertText"]
    assert suggestion == "def perimeter(w, h):\n    return 2 * (w + h)"
    ast.parse(end + suggestion + "\n")
