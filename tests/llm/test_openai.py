"""OpenAI-compatible provider against the fake server: edge cases 15-27 of llm-wire-protocols.md §4."""

from __future__ import annotations

import json

import pytest

from agent_server.errors import ContextOverflowError, LLMHTTPError, LLMStreamError
from agent_server.llm.openai_compat import OpenAIProvider
from agent_server.llm.text_tools import recover_tool_calls
from agent_server.messages import Message, ToolCall
from tests.fakes.fake_llm import (
    Both,
    Comment,
    Delay,
    FakeLLMServer,
    FakeModel,
    FakeToolCall,
    FakeUsage,
    Raw,
    Reply,
    StreamError,
    Text,
    Thinking,
    ToolCalls,
)
from tests.llm.helpers import READ_FILE, request, run


@pytest.mark.parametrize("role_chunk", ["null", "empty", "none"])
async def test_15_role_chunk_content_null_or_empty(
    fake_llm: FakeLLMServer, openai: OpenAIProvider, role_chunk: str
) -> None:
    fake_llm.script(Reply.text("Hello", pieces=2, role_chunk=role_chunk))  # type: ignore[arg-type]
    out = await run(openai)
    assert out.text == "Hello" and out.finish.reason == "stop"


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning", "both"])
async def test_16_reasoning_under_either_name_is_thinking(
    fake_llm: FakeLLMServer, openai: OpenAIProvider, field: str
) -> None:
    fake_llm.script(Reply(steps=[Thinking("Let "), Thinking("me"), Both(" see", "Ans")], reasoning_field=field))  # type: ignore[arg-type]
    out = await run(openai)
    assert out.thinking == "Let me see" and out.text == "Ans"


async def test_17_fragmented_call_is_assembled_after_finish(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    args = {"path": "src/app.py", "start": 10}
    fake_llm.script(Reply(steps=[ToolCalls([FakeToolCall("read_file", args, id="call_abc")], fragments=7)]))
    out = await run(openai, request(tools=[READ_FILE]))
    assert [(c.id, c.name, c.arguments) for c in out.calls] == [("call_abc", "read_file", args)]
    assert out.finish.reason == "tool_calls"


@pytest.mark.parametrize("style", ["interleaved", "late_name"])
async def test_17_interleaved_indices_and_late_name(
    fake_llm: FakeLLMServer, openai: OpenAIProvider, style: str
) -> None:
    calls = [FakeToolCall("read_file", {"path": "a"}), FakeToolCall("grep", {"pattern": "x", "path": "b"})]
    fake_llm.script(Reply(steps=[ToolCalls(calls, style=style, fragments=4)]))  # type: ignore[arg-type]
    out = await run(openai)
    assert [(c.name, c.arguments) for c in out.calls] == [
        ("read_file", {"path": "a"}),
        ("grep", {"pattern": "x", "path": "b"}),
    ]


@pytest.mark.parametrize("style", ["whole", "object"])
async def test_18_whole_call_and_object_arguments(fake_llm: FakeLLMServer, openai: OpenAIProvider, style: str) -> None:
    fake_llm.script(Reply(steps=[ToolCalls([FakeToolCall("read_file", {"path": "a.py"})], style=style)]))  # type: ignore[arg-type]
    out = await run(openai)
    assert [(c.name, c.arguments) for c in out.calls] == [("read_file", {"path": "a.py"})]


async def test_invalid_argument_json_is_flagged_not_raised(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    fake_llm.script(Reply(steps=[ToolCalls([FakeToolCall("read_file", '{"path": "a.py"')])]))
    call = (await run(openai)).calls[0]
    assert call.name == "read_file" and call.arguments == {} and "not valid JSON" in str(call.arguments_error)


@pytest.mark.parametrize(("finish", "expected"), [("stop", "stop"), ("length", "length")])
async def test_19_finish_chunk_with_empty_delta(
    fake_llm: FakeLLMServer, openai: OpenAIProvider, finish: str, expected: str
) -> None:
    fake_llm.script(Reply.text("x", finish_reason=finish))
    assert (await run(openai)).finish.reason == expected


async def test_19_stop_with_calls_still_means_tool_calls(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    fake_llm.script(Reply(steps=[ToolCalls([FakeToolCall("read_file", {"path": "a"})])], finish_reason="stop"))
    out = await run(openai)
    assert len(out.calls) == 1 and out.finish.reason == "tool_calls"


async def test_20_usage_chunk_and_timings(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    timings = {"cache_n": 3, "prompt_n": 12, "prompt_ms": 40.0, "predicted_n": 5, "predicted_ms": 100.0}
    fake_llm.script(Reply.text("hi", usage=FakeUsage(prompt_tokens=15, completion_tokens=5), timings=timings))
    u = (await run(openai)).finish.usage
    assert (u.prompt_tokens, u.completion_tokens, u.cached_tokens) == (15, 5, 3)
    assert (u.prompt_eval_duration_ms, u.eval_duration_ms) == (40.0, 100.0)
    assert fake_llm.chat_requests()[0].json["stream_options"] == {"include_usage": True}


def test_20_timings_without_usage_chunk(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("hi", timings={"cache_n": 2, "prompt_n": 8, "predicted_n": 4, "predicted_ms": 9.0}))
    # The server only sends a usage chunk when asked; strip the request option by posting through a bare client.
    import httpx

    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "q"}]}
    text = httpx.post(fake_llm.url + "/v1/chat/completions", json=body).text
    assert '"usage"' not in text and '"timings"' in text
    from agent_server.llm.openai_stream import usage_from

    last = json.loads(next(ln for ln in text.splitlines() if "timings" in ln)[6:])
    u = usage_from(last.get("usage"), last["timings"])
    assert (u.prompt_tokens, u.completion_tokens, u.cached_tokens) == (10, 4, 2)


@pytest.mark.parametrize(
    "knobs",
    [
        {"done_marker": "no_blank"},
        {"done_marker": "none"},
        {"coalesce": 0},
        {"split_writes": True},
        {"comments": True},
    ],
)
async def test_21_framing_variants(fake_llm: FakeLLMServer, openai: OpenAIProvider, knobs: dict[str, object]) -> None:
    fake_llm.script(Reply(steps=[Comment(), Text("a"), Thinking("t"), Text("b")], **knobs))  # type: ignore[arg-type]
    out = await run(openai)
    assert (out.text, out.thinking, out.finish.reason) == ("ab", "t", "stop")


async def test_22_legacy_error_line_is_detected(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    fake_llm.script(Reply(steps=[Text("a"), StreamError("the model crashed", style="legacy")]))
    with pytest.raises(LLMStreamError, match="the model crashed"):
        await run(openai)


async def test_22_data_error_exceed_context(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    err = {
        "code": 400,
        "message": "the request exceeds the available context size, try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 14429,
        "n_ctx": 8192,
    }
    fake_llm.script(Reply(steps=[StreamError(err["message"], error=err)]))  # type: ignore[arg-type]
    with pytest.raises(ContextOverflowError) as info:
        await run(openai)
    assert (info.value.n_ctx, info.value.prompt_tokens) == (8192, 14429)


@pytest.mark.parametrize(
    ("reply", "status", "message"),
    [
        (Reply.llamacpp_error(400, "bad things", "invalid_request_error"), 400, "bad things"),
        (Reply.ollama_v1_error(400, "gemma3 does not support tools"), 400, "gemma3 does not support tools"),
        (Reply.vllm_error(400, "Invalid tool schema"), 400, "Invalid tool schema"),
        (Reply.llamacpp_error(500, "tools param requires --jinja flag"), 500, "tools param requires --jinja flag"),
        (Reply.llamacpp_error(503, "Loading model", "unavailable_error"), 503, "Loading model"),
        (Reply.http_error(502, "Bad Gateway"), 502, "Bad Gateway"),
    ],
)
async def test_23_http_error_shapes(
    fake_llm: FakeLLMServer, openai: OpenAIProvider, reply: Reply, status: int, message: str
) -> None:
    fake_llm.script(reply)
    with pytest.raises(LLMHTTPError) as info:
        await run(openai)
    assert (info.value.status, info.value.message) == (status, message)


async def test_23_http_exceed_context_is_overflow(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    fake_llm.script(
        Reply.llamacpp_error(400, "request too large", "exceed_context_size_error", n_prompt_tokens=9000, n_ctx=4096)
    )
    with pytest.raises(ContextOverflowError) as info:
        await run(openai)
    assert info.value.n_ctx == 4096


async def test_24_call_as_text_and_qwen_blank_content(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    text = '<tool_call>\n{"name": "read_file", "arguments": {"path": "x"}}\n</tool_call>'
    fake_llm.script(
        Reply.text(text, pieces=4),
        Reply(steps=[Text("\n\n"), ToolCalls([FakeToolCall("read_file", {"path": "y"})])]),
    )
    first = await run(openai)
    assert first.calls == [] and first.finish.reason == "stop"
    assert [c.arguments for c in recover_tool_calls(first.text, {"read_file"})[0]] == [{"path": "x"}]
    second = await run(openai)
    assert second.text.strip() == "" and second.calls[0].arguments == {"path": "y"}


async def test_25_non_stream_answer_with_null_content_and_numeric_id(
    fake_llm: FakeLLMServer, openai: OpenAIProvider
) -> None:
    fake_llm.script(
        Reply(steps=[ToolCalls([FakeToolCall("read_file", {"path": "a"}, id="365174485")])], ignore_stream=True)
    )
    out = await run(openai)
    assert [(c.id, c.arguments) for c in out.calls] == [("365174485", {"path": "a"})]
    assert out.text == "" and out.finish.reason == "tool_calls" and out.finish.usage.prompt_tokens == 10


async def test_26_models_with_meta_and_embeddings(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    fake_llm.models = [FakeModel("model.gguf", v1_extra={"owned_by": "llamacpp", "meta": {"n_ctx_train": 131072}})]
    assert [(m.name, m.context_length) for m in await openai.list_models()] == [("model.gguf", 131072)]
    fake_llm.models = [FakeModel("a", v1_extra={"meta": None}), FakeModel("b")]
    models = await openai.list_models()
    assert [(m.name, m.context_length) for m in models] == [("a", None), ("b", None)]
    assert (await openai.model_info("b")).name == "b"
    vectors = await openai.embed("e", ["x", "y", "z"])
    assert len(vectors) == 3 and vectors[0] != vectors[1]


async def test_27_closing_the_stream_disconnects_the_server(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    fake_llm.script(Reply(steps=[Text("a"), Delay(0.05)] * 200))
    stream = openai.stream_chat(request())
    assert (await anext(stream)).text == "a"  # type: ignore[union-attr]
    await stream.aclose()  # type: ignore[attr-defined]
    recorded = fake_llm.chat_requests()[0]
    assert recorded.wait_done(5) and recorded.disconnected


async def test_history_goes_out_with_string_arguments_and_tool_call_id(
    fake_llm: FakeLLMServer, openai: OpenAIProvider
) -> None:
    req = request(tools=[READ_FILE], max_tokens=100, think="low")
    req.messages += [
        Message(role="assistant", tool_calls=[ToolCall("call_1", "read_file", {"path": "a.py"})]),
        Message(role="tool", content="print(1)", tool_call_id="call_1", tool_name="read_file"),
    ]
    await run(openai, req)
    body = fake_llm.chat_requests()[0].json
    assert body["messages"][1]["content"] is None
    assert json.loads(body["messages"][1]["tool_calls"][0]["function"]["arguments"]) == {"path": "a.py"}
    assert body["messages"][2]["tool_call_id"] == "call_1"
    assert body["max_tokens"] == 100 and body["reasoning_effort"] == "low"


@pytest.mark.parametrize("suffix", ["", "/v1", "/v1/"])
async def test_base_url_with_or_without_v1(fake_llm: FakeLLMServer, suffix: str) -> None:
    provider = OpenAIProvider(fake_llm.url + suffix, api_key="sk-local")
    assert (await run(provider)).text == "ok"
    assert fake_llm.chat_requests()[0].path == "/v1/chat/completions"
    assert fake_llm.chat_requests()[0].headers["authorization"] == "Bearer sk-local"
    await provider.aclose()


async def test_garbage_event_is_a_stream_error(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    fake_llm.script(Reply(steps=[Text("a"), Raw("data: {not json\n\n")]))
    with pytest.raises(LLMStreamError, match="not JSON"):
        await run(openai)
