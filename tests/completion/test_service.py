"""The completion service against the fake LLM over real HTTP: each server family's request, context, cancellation,
early stop, cache and debounce. The index is a real WorkspaceIndex over a temporary workspace."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_server.completion.context import IndexDefinitions
from agent_server.completion.endpoint import open_backend
from agent_server.completion.service import CompletionService, Document
from agent_server.config import Settings, build
from agent_server.index.workspace_index import WorkspaceIndex
from tests.fakes.fake_llm import Delay, FakeLLMServer, FakeModel, Reply, Text

HELPERS = "def compute_total(items, tax):\n    subtotal = sum(items)\n    return subtotal * (1 + tax)\n"
MAIN = "from helpers import compute_total\n\n\ndef checkout(cart):\n    \n    return price\n"
LLAMACPP_PROPS = {"default_generation_settings": {"n_ctx": 4096}, "model_alias": "qwen2.5-coder"}


def settings(fake: FakeLLMServer, **completion: Any) -> Settings:
    llm = {"provider": "openai", "base_url": fake.url, "model": fake.models[0].name}
    return build({"llm": llm, "completion": {"debounce_ms": 0, **completion}})


def service(s: Settings, defs: IndexDefinitions | None = None) -> CompletionService:
    async def factory() -> Any:
        return await open_backend(s)

    return CompletionService(s.completion, factory, defs, repo_name="shop")


def doc(text: str = MAIN, line: int = 4, character: int = 4, key: str = "file:///ws/main.py") -> Document:
    return Document(key, "main.py", text, line, character)


async def test_llamacpp_infill_gets_prefix_suffix_the_ring_and_definitions_near_the_cursor(
    fake_llm: FakeLLMServer, workspace: Path
) -> None:
    fake_llm.props = LLAMACPP_PROPS
    fake_llm.flavor = "openai"
    (workspace / "helpers.py").write_text(HELPERS)
    (workspace / "main.py").write_text(MAIN)
    index = WorkspaceIndex(workspace, db_path=workspace.parent / "index.db")
    await index.build()
    # The first /infill is the one-token check that the model can fill in the middle at all.
    fake_llm.script(Reply.text("x"), Reply.text("price = compute_total(cart, 0.2)\n", pieces=4))
    svc = service(settings(fake_llm, provider="auto"), IndexDefinitions(index.db))
    svc.opened("notes/todo.py", "def later():\n    pass\n\n\ndef sooner():\n    return 1\n")
    try:
        got = await svc.complete(doc())
    finally:
        await svc.aclose()
        index.close()
    assert got.text == "price = compute_total(cart, 0.2)"
    body = fake_llm.fim_requests()[-1].json
    assert fake_llm.fim_requests()[-1].path == "/infill"
    assert body["input_prefix"].endswith("def checkout(cart):\n") and body["prompt"] == "    "
    assert body["input_suffix"].startswith("\n    return price")
    assert body["cache_prompt"] is True and body["stream"] is True
    extra = [(e["filename"], e["text"].splitlines()[0]) for e in body["input_extra"]]
    # The ring's chunk first (it changes rarely), then the definition of a name near the cursor; never main.py.
    assert extra == [("notes/todo.py", "def later():"), ("helpers.py", "def compute_total(items, tax):")]


async def test_ollama_qwen_coder_gets_its_own_fim_tokens_in_a_raw_prompt(fake_llm: FakeLLMServer) -> None:
    fake_llm.models = [FakeModel("qwen2.5-coder:1.5b-base", capabilities=["completion", "insert"])]
    fake_llm.script(Reply.text("price = 1\n"))
    s = build({"llm": {"provider": "ollama", "base_url": fake_llm.url, "model": "qwen2.5-coder:1.5b-base"},
               "completion": {"debounce_ms": 0}})  # fmt: skip
    svc = service(s)
    svc.opened("lib/util.py", "def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    got = await svc.complete(doc())
    await svc.aclose()
    assert got.text == "price = 1"
    body = fake_llm.fim_requests()[-1].json
    assert fake_llm.fim_requests()[-1].path == "/api/generate" and body["raw"] is True
    assert body["prompt"].startswith("<|repo_name|>shop\n<|file_sep|>lib/util.py\ndef a():")
    assert "<|file_sep|>main.py\n<|fim_prefix|>" in body["prompt"] and body["prompt"].endswith("<|fim_middle|>")
    assert body["options"]["num_ctx"] >= 2048 and "<|endoftext|>" in body["options"]["stop"]


async def test_ollama_model_without_fim_is_left_alone_and_says_why(fake_llm: FakeLLMServer) -> None:
    fake_llm.models = [FakeModel("llama3.2:3b", capabilities=["completion", "tools"])]
    s = build({"llm": {"provider": "ollama", "base_url": fake_llm.url, "model": "llama3.2:3b"},
               "completion": {"debounce_ms": 0}})  # fmt: skip
    svc = service(s)
    got = await svc.complete(doc())
    assert got.text == "" and got.reason == "unsupported"
    assert svc.support is not None and "cannot fill in the middle" in svc.support.reason
    assert fake_llm.fim_requests() == []


async def test_ollama_model_with_insert_capability_gets_suffix(fake_llm: FakeLLMServer) -> None:
    fake_llm.models = [FakeModel("mystery:7b", capabilities=["completion", "insert"])]
    fake_llm.script(Reply.text("price = 2\n"))
    s = build({"llm": {"provider": "ollama", "base_url": fake_llm.url, "model": "mystery:7b"},
               "completion": {"debounce_ms": 0}})  # fmt: skip
    svc = service(s)
    assert (await svc.complete(doc())).text == "price = 2"
    body = fake_llm.fim_requests()[-1].json
    assert body["suffix"].startswith("\n    return price") and "raw" not in body


async def test_openai_compatible_completions_endpoint(fake_llm: FakeLLMServer) -> None:
    fake_llm.models = [FakeModel("deepseek-coder-1.3b-base")]
    fake_llm.script(Reply.text("price = 3\n", pieces=3))
    svc = service(settings(fake_llm))
    assert (await svc.complete(doc())).text == "price = 3"
    req = fake_llm.fim_requests()[-1]
    assert req.path == "/v1/completions" and req.json["prompt"].startswith("<｜fim▁begin｜>")


async def test_a_newer_request_cancels_the_older_generation_and_closes_its_stream(fake_llm: FakeLLMServer) -> None:
    fake_llm.models = [FakeModel("qwen2.5-coder-0.5b")]
    fake_llm.script(Reply(steps=[Text("pri"), Delay(30), Text("ce = 0\n")]), Reply.text("price = 4\n"))
    svc = service(settings(fake_llm))
    first = asyncio.ensure_future(svc.complete(doc()))
    await asyncio.to_thread(fake_llm.wait_for_requests, 1)
    await asyncio.sleep(0.2)
    second = await svc.complete(doc(MAIN.replace("    \n", "    p\n"), character=5))
    older = await asyncio.wait_for(first, 5)
    assert older.text == "" and older.reason == "superseded"
    assert second.text == "price = 4"
    slow = fake_llm.fim_requests()[0]
    assert await asyncio.to_thread(slow.wait_done, 5) and slow.disconnected


async def test_cancelling_the_request_task_closes_the_http_stream(fake_llm: FakeLLMServer) -> None:
    fake_llm.models = [FakeModel("qwen2.5-coder-0.5b")]
    fake_llm.script(Reply(steps=[Text("x"), Delay(30), Text(" = 1\n")]))
    svc = service(settings(fake_llm))
    task = asyncio.ensure_future(svc.complete(doc()))
    await asyncio.to_thread(fake_llm.wait_for_requests, 1)
    await asyncio.sleep(0.2)
    task.cancel()
    try:
        await task
        raise AssertionError("a cancelled request must not answer")
    except asyncio.CancelledError:
        pass
    req = fake_llm.fim_requests()[0]
    assert await asyncio.to_thread(req.wait_done, 5) and req.disconnected


async def test_generation_stops_when_the_block_ends(fake_llm: FakeLLMServer) -> None:
    fake_llm.models = [FakeModel("qwen2.5-coder-0.5b")]
    block = "price = sum(cart)\n    price *= 2\n"
    fake_llm.script(Reply(steps=[Text(block), Text("def next_function():\n"), Delay(30), Text("    pass\n")]))
    svc = service(settings(fake_llm))
    got = await asyncio.wait_for(svc.complete(doc()), 10)
    assert got.text == "price = sum(cart)\n    price *= 2"
    req = fake_llm.fim_requests()[0]
    assert await asyncio.to_thread(req.wait_done, 5) and req.disconnected


async def test_cache_answers_the_same_prefix_and_the_typed_ahead_rest_without_the_server(
    fake_llm: FakeLLMServer,
) -> None:
    fake_llm.models = [FakeModel("qwen2.5-coder-0.5b")]
    fake_llm.script(Reply.text("price = compute(cart)\n"))
    svc = service(settings(fake_llm))
    assert (await svc.complete(doc())).text == "price = compute(cart)"
    again = await svc.complete(doc())
    typed = await svc.complete(doc(MAIN.replace("    \n", "    pri\n"), character=7))
    assert again.cached and again.text == "price = compute(cart)"
    assert typed.cached and typed.text == "ce = compute(cart)"
    assert len(fake_llm.fim_requests()) == 1


async def test_debounce_sends_only_the_last_of_quick_keystrokes(fake_llm: FakeLLMServer) -> None:
    fake_llm.models = [FakeModel("qwen2.5-coder-0.5b")]
    fake_llm.default_reply = Reply.text("price = 5\n")
    svc = service(settings(fake_llm, debounce_ms=300))
    typing = [doc(MAIN.replace("    \n", "    " + "p" * n + "\n"), character=4 + n) for n in range(4)]
    tasks = [asyncio.ensure_future(svc.complete(d)) for d in typing]
    results = await asyncio.gather(*tasks)
    assert [r.reason for r in results[:3]] == ["superseded"] * 3
    assert len(fake_llm.fim_requests()) == 1


async def test_disabled_and_unreachable_server_give_no_suggestion(fake_llm: FakeLLMServer) -> None:
    svc = service(settings(fake_llm, enabled=False))
    assert (await svc.complete(doc())).reason == "disabled"
    gone = build({"llm": {"provider": "openai", "base_url": "http://127.0.0.1:9", "model": "qwen2.5-coder"},
                  "completion": {"debounce_ms": 0, "timeout_s": 2}})  # fmt: skip
    svc = service(gone)
    got = await svc.complete(doc())
    assert got.text == "" and got.reason == "error"
