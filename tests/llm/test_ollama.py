"""Ollama native provider against the fake server: edge cases 1-14 of llm-wire-protocols.md §4."""

from __future__ import annotations

import pytest

from agent_server.errors import ContextOverflowError, LLMConnectionError, LLMHTTPError, LLMStreamError
from agent_server.llm.ollama import OllamaProvider
from agent_server.llm.text_tools import recover_tool_calls
from agent_server.messages import Message, ToolCall
from tests.fakes.fake_llm import (
    Both,
    FakeLLMServer,
    FakeModel,
    FakeToolCall,
    FakeUsage,
    Reply,
    StreamError,
    Text,
    Thinking,
    ToolCalls,
)
from tests.llm.helpers import READ_FILE, request, run


async def test_1_plain_stream_gives_text_usage_and_stop(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.script(Reply.text("Hello world", pieces=4))
    out = await run(ollama)
    assert out.text == "Hello world"
    assert out.finish.reason == "stop"
    u = out.finish.usage
    assert (u.prompt_tokens, u.completion_tokens) == (10, 5)
    assert u.total_duration_ms == 50.0 and u.eval_duration_ms == 30.0


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (404, "model 'x' not found"),
        (400, "registry.ollama.ai/library/gemma3:4b does not support tools"),
        (400, '"x" does not support thinking'),
        (503, "server busy, please try again.  maximum pending requests exceeded"),
        (499, "request canceled"),
    ],
)
async def test_2_http_errors_carry_status_and_message(
    fake_llm: FakeLLMServer, ollama: OllamaProvider, status: int, message: str
) -> None:
    fake_llm.script(Reply.ollama_error(status, message))
    with pytest.raises(LLMHTTPError) as info:
        await run(ollama)
    assert info.value.status == status and info.value.message == message
    assert info.value.retryable == (status >= 500)


async def test_2_bare_error_as_first_line(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.script(Reply(steps=[StreamError("model failed to load")]))
    with pytest.raises(LLMStreamError, match="model failed to load"):
        await run(ollama)


async def test_3_mid_stream_error_after_good_lines(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.script(
        Reply(steps=[Text("a"), Text("b"), StreamError("an error was encountered while running the model")])
    )
    seen: list[str] = []
    with pytest.raises(LLMStreamError, match="an error was encountered"):
        async for event in ollama.stream_chat(request()):
            seen.append(getattr(event, "text", ""))
    assert seen == ["a", "b"]


async def test_4_thinking_then_content_and_a_line_with_both(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.script(Reply(steps=[Thinking("Let me "), Thinking("see."), Both(" Done.", "The"), Text(" answer")]))
    out = await run(ollama)
    assert out.thinking == "Let me see. Done."
    assert out.text == "The answer"


async def test_5_tool_call_whole_with_id_and_index(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.script(Reply(steps=[ToolCalls([FakeToolCall("read_file", {"path": "a.py"}, id="call_k3x9a0qz")])]))
    out = await run(ollama, request(tools=[READ_FILE]))
    assert [(c.id, c.name, c.arguments) for c in out.calls] == [("call_k3x9a0qz", "read_file", {"path": "a.py"})]
    assert out.finish.reason == "tool_calls"  # Ollama says "stop"


@pytest.mark.parametrize("one_line", [True, False])
async def test_5_two_calls_on_one_or_two_lines(fake_llm: FakeLLMServer, ollama: OllamaProvider, one_line: bool) -> None:
    calls = [FakeToolCall("read_file", {"path": "a"}), FakeToolCall("read_file", {"path": "b"})]
    fake_llm.script(Reply(steps=[ToolCalls(calls, one_line=one_line)]))
    out = await run(ollama)
    assert [c.arguments["path"] for c in out.calls] == ["a", "b"]
    assert len({c.id for c in out.calls}) == 2


async def test_5_old_server_without_id_or_index_gets_generated_ids(
    fake_llm: FakeLLMServer, ollama: OllamaProvider
) -> None:
    fake_llm.script(Reply(steps=[ToolCalls([FakeToolCall("a", {}), FakeToolCall("b", {"x": 1})], ids=False)]))
    out = await run(ollama)
    assert [c.name for c in out.calls] == ["a", "b"]
    assert all(c.id.startswith("call_") for c in out.calls) and out.calls[0].id != out.calls[1].id
    assert out.calls[0].arguments == {} and out.calls[0].arguments_error is None


async def test_5_string_arguments_are_parsed_or_flagged(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.script(Reply(steps=[ToolCalls([FakeToolCall("a", '{"path": "x"}'), FakeToolCall("b", "{oops")])]))
    out = await run(ollama)
    assert out.calls[0].arguments == {"path": "x"} and out.calls[0].arguments_error is None
    assert out.calls[1].arguments_error is not None and "not valid JSON" in out.calls[1].arguments_error


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "read_file", "arguments": {"path": "a.py"}}',
        '<tool_call>{"name":"read_file","arguments":{"path":"a.py"}}</tool_call>',
    ],
)
async def test_6_tool_call_as_text_is_text_then_recovered(
    fake_llm: FakeLLMServer, ollama: OllamaProvider, text: str
) -> None:
    fake_llm.script(Reply.text(text, pieces=5))
    out = await run(ollama, request(tools=[READ_FILE]))
    assert out.calls == [] and out.finish.reason == "stop" and out.text == text
    calls, visible = recover_tool_calls(out.text, {"read_file"})
    assert [(c.name, c.arguments) for c in calls] == [("read_file", {"path": "a.py"})] and visible == ""


async def test_7_length(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.script(Reply.text("cut sh", done_reason="length"))
    out = await run(ollama, request(max_tokens=2))
    assert out.finish.reason == "length"
    assert fake_llm.chat_requests()[0].json["options"] == {"num_predict": 2}


async def test_8_silent_truncation_reports_prompt_tokens_equal_num_ctx(
    fake_llm: FakeLLMServer, ollama: OllamaProvider
) -> None:
    fake_llm.script(Reply.text("ok", usage=FakeUsage(prompt_tokens=2048)))
    out = await run(ollama, request("x" * 20000, num_ctx=2048))
    assert out.finish.usage.prompt_tokens == 2048


async def test_8_400_naming_the_limit_is_context_overflow(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.script(Reply.ollama_error(400, "the input length exceeds the context length (4096)"))
    with pytest.raises(ContextOverflowError) as info:
        await run(ollama)
    assert info.value.n_ctx == 4096


async def test_9_missing_metrics_are_zero(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.script(Reply.text("x", usage=FakeUsage(prompt_tokens=0, load_duration_ns=0, completion_tokens=3)))
    u = (await run(ollama)).finish.usage
    assert (u.prompt_tokens, u.load_duration_ms, u.completion_tokens) == (0, 0.0, 3)


async def test_10_server_answering_one_object_is_accepted(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.script(
        Reply(steps=[Thinking("t"), Text("a"), Text("b"), ToolCalls([FakeToolCall("f", {"k": 1})])], ignore_stream=True)
    )
    out = await run(ollama)
    assert (out.thinking, out.text, out.calls[0].arguments, out.finish.reason) == ("t", "ab", {"k": 1}, "tool_calls")


async def test_11_empty_messages_load_finishes_cleanly(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    req = request()
    req.messages = []
    out = await run(ollama, req)
    assert out.text == "" and out.finish.reason == "stop"


async def test_12_history_goes_out_with_object_arguments_and_tool_name(
    fake_llm: FakeLLMServer, ollama: OllamaProvider
) -> None:
    req = request(tools=[READ_FILE], temperature=0.2, seed=7, stop=["END"], num_ctx=8192, think=False, keep_alive="10m")
    req.messages += [
        Message(role="assistant", tool_calls=[ToolCall("call_1", "read_file", {"path": "a.py"})]),
        Message(role="tool", content="print(1)", tool_call_id="call_1", tool_name="read_file"),
    ]
    out = await run(ollama, req)  # the fake rejects string arguments with 400 as Ollama does
    assert out.text == "ok"
    body = fake_llm.chat_requests()[0].json
    assert body["messages"][1]["tool_calls"][0]["function"]["arguments"] == {"path": "a.py"}
    assert body["messages"][2] == {
        "role": "tool",
        "content": "print(1)",
        "tool_name": "read_file",
        "tool_call_id": "call_1",
    }
    assert body["options"] == {"num_ctx": 8192, "temperature": 0.2, "seed": 7, "stop": ["END"]}
    assert body["think"] is False and body["keep_alive"] == "10m"
    assert body["tools"][0]["function"]["name"] == "read_file"


async def test_12_think_is_left_out_unless_set(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    await run(ollama)
    assert "think" not in fake_llm.chat_requests()[0].json and "options" not in fake_llm.chat_requests()[0].json


async def test_13_models_show_and_embed(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.models = [
        FakeModel("qwen3:8b", context_length=40960),
        FakeModel("gemma3:4b", context_length=8192, capabilities=["completion", "vision"], architecture="gemma3"),
    ]
    models = await ollama.list_models()
    assert [(m.name, m.supports_tools) for m in models] == [("qwen3:8b", True), ("gemma3:4b", False)]
    info = await ollama.model_info("gemma3:4b")
    assert (info.context_length, info.supports_tools, info.supports_vision, info.supports_thinking) == (
        8192,
        False,
        True,
        False,
    )
    with pytest.raises(LLMHTTPError, match="not found"):
        await ollama.model_info("nope")
    vectors = await ollama.embed("nomic", [f"t{i}" for i in range(70)])  # two batches
    assert len(vectors) == 70 and len(vectors[0]) == 8
    assert len([r for r in fake_llm.requests if r.path == "/api/embed"]) == 2


async def test_14_slow_first_byte_and_split_lines(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.script(Reply.text("a line split in halves", pieces=6, split_writes=True, first_byte_delay=0.2))
    assert (await run(ollama)).text == "a line split in halves"


async def test_14_many_lines_in_one_write(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.script(Reply.text("abcdefghij", pieces=10, coalesce=0))
    assert (await run(ollama)).text == "abcdefghij"


async def test_stream_ending_without_done_is_an_error(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    fake_llm.script(Reply.text("partial", final_line=False))
    with pytest.raises(LLMStreamError, match="before the final"):
        await run(ollama)


async def test_connection_refused_names_the_url() -> None:
    provider = OllamaProvider("http://127.0.0.1:9", connect_timeout_s=1)
    with pytest.raises(LLMConnectionError) as info:
        await run(provider)
    assert "http://127.0.0.1:9/api/chat" in str(info.value) and info.value.retryable
    await provider.aclose()


async def test_read_timeout_is_a_connection_error(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("late", first_byte_delay=2))
    provider = OllamaProvider(fake_llm.url, timeout_s=0.2)
    with pytest.raises(LLMConnectionError, match="timeout"):
        await run(provider)
    await provider.aclose()


async def test_27_closing_the_stream_disconnects_the_server(fake_llm: FakeLLMServer, ollama: OllamaProvider) -> None:
    from tests.fakes.fake_llm import Delay

    fake_llm.script(Reply(steps=[Text("a"), Delay(0.05)] * 200))
    stream = ollama.stream_chat(request())
    assert (await anext(stream)).text == "a"  # type: ignore[union-attr]
    await stream.aclose()  # type: ignore[attr-defined]
    recorded = fake_llm.chat_requests()[0]
    assert recorded.wait_done(5) and recorded.disconnected
