"""The fake LLM server speaks the framing of the real servers, checked with a bare httpx client."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from tests.fakes.fake_llm import (
    Both,
    Delay,
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


def ndjson(fake: FakeLLMServer, **body: object) -> list[dict[str, object]]:
    payload = {"model": "qwen3:8b", "messages": [{"role": "user", "content": "hi"}], **body}
    r = httpx.post(fake.url + "/api/chat", json=payload)
    assert r.headers["content-type"] == "application/x-ndjson"
    return [json.loads(line) for line in r.text.splitlines() if line]


def sse(fake: FakeLLMServer, **body: object) -> str:
    payload = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}], **body}
    r = httpx.post(fake.url + "/v1/chat/completions", json=payload)
    assert r.headers["content-type"] == "text/event-stream"
    return r.text


def sse_data(text: str) -> list[object]:
    out: list[object] = []
    for line in text.split("\n"):
        if line.startswith("data: "):
            raw = line[6:]
            out.append(raw if raw == "[DONE]" else json.loads(raw))
    return out


def test_ollama_text_then_done_line_with_metrics(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("Hello world", pieces=3))
    lines = ndjson(fake_llm)
    assert "".join(str(ln["message"]["content"]) for ln in lines) == "Hello world"  # type: ignore[index]
    assert lines[-1]["done"] is True and lines[-1]["done_reason"] == "stop"
    assert lines[-1]["eval_count"] == 5 and lines[-1]["prompt_eval_count"] == 10
    assert all(ln["done"] is False for ln in lines[:-1])


def test_ollama_zero_metrics_are_left_out(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("x", usage=FakeUsage(prompt_tokens=0, load_duration_ns=0)))
    last = ndjson(fake_llm)[-1]
    assert "prompt_eval_count" not in last and "load_duration" not in last and last["eval_count"] == 5


def test_ollama_thinking_both_and_tool_calls(fake_llm: FakeLLMServer) -> None:
    calls = [FakeToolCall("a", {"x": 1}), FakeToolCall("b", {})]
    fake_llm.script(Reply(steps=[Thinking("hm"), Both("more", "ans"), ToolCalls(calls)]))
    lines = ndjson(fake_llm)
    assert lines[0]["message"] == {"role": "assistant", "content": "", "thinking": "hm"}
    assert lines[1]["message"] == {"role": "assistant", "content": "ans", "thinking": "more"}
    tc = lines[2]["message"]["tool_calls"]  # type: ignore[index]
    assert [c["function"]["index"] for c in tc] == [0, 1]
    assert tc[0]["function"]["arguments"] == {"x": 1} and tc[0]["id"].startswith("call_")
    assert lines[3]["done_reason"] == "stop"


def test_ollama_old_server_calls_have_no_id_or_index(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply(steps=[ToolCalls([FakeToolCall("a", "{bad")], ids=False)]))
    call = ndjson(fake_llm)[0]["message"]["tool_calls"][0]  # type: ignore[index]
    assert call == {"function": {"name": "a", "arguments": "{bad"}}


def test_ollama_mid_stream_error_has_no_done_line(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(
        Reply(steps=[Text("a"), Text("b"), StreamError("an error was encountered while running the model")])
    )
    lines = ndjson(fake_llm)
    assert lines[-1] == {"error": "an error was encountered while running the model"}
    assert not any(ln.get("done") for ln in lines)


def test_ollama_request_validation_and_load(fake_llm: FakeLLMServer) -> None:
    bad_history = [{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "a", "arguments": "{}"}}]}]
    r = httpx.post(fake_llm.url + "/api/chat", json={"model": "m", "messages": bad_history})
    assert r.status_code == 400 and "Value looks like object" in r.json()["error"]
    r = httpx.post(fake_llm.url + "/api/chat", json={"model": "m", "messages": [], "keep_alive": 0})
    assert r.json()["done_reason"] == "unload"
    r = httpx.post(fake_llm.url + "/api/chat", json={"model": "m", "messages": [], "top_logprobs": 30})
    assert r.status_code == 400


def test_http_error_reply_shapes(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.ollama_error(404, "model 'x' not found"), Reply.vllm_error(400, "bad"))
    r = httpx.post(fake_llm.url + "/api/chat", json={"model": "x", "messages": [{"role": "user", "content": "q"}]})
    assert (r.status_code, r.json()) == (404, {"error": "model 'x' not found"})
    r = httpx.post(fake_llm.url + "/v1/chat/completions", json={"model": "x", "messages": []})
    assert r.status_code == 400 and r.json()["object"] == "error" and r.json()["code"] == 400


def test_stream_false_accumulates(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply(steps=[Thinking("t"), Text("a"), Text("b"), ToolCalls([FakeToolCall("f", {"k": 1})])]))
    body = httpx.post(
        fake_llm.url + "/api/chat", json={"model": "m", "stream": False, "messages": [{"role": "user"}]}
    ).json()
    assert body["message"]["content"] == "ab" and body["message"]["thinking"] == "t" and body["done"] is True
    fake_llm.script(Reply(steps=[ToolCalls([FakeToolCall("f", {"k": 1}, id="365174485")])]))
    body = httpx.post(fake_llm.url + "/v1/chat/completions", json={"model": "m", "messages": []}).json()
    msg = body["choices"][0]["message"]
    assert msg["content"] is None and msg["tool_calls"][0]["function"]["arguments"] == '{"k":1}'
    assert body["choices"][0]["finish_reason"] == "tool_calls"


def test_openai_fragments_usage_and_done(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply(steps=[Thinking("r"), ToolCalls([FakeToolCall("read", {"path": "a.py"})], fragments=4)]))
    events = sse_data(sse(fake_llm, stream_options={"include_usage": True}))
    assert events[0]["choices"][0]["delta"] == {"role": "assistant", "content": None}  # type: ignore[index]
    assert events[1]["choices"][0]["delta"] == {"reasoning_content": "r"}  # type: ignore[index]
    pieces = [e["choices"][0]["delta"]["tool_calls"][0] for e in events[2:-3]]  # type: ignore[index]
    assert pieces[0]["function"] == {"name": "read", "arguments": ""} and "id" in pieces[0]
    assert json.loads("".join(p["function"]["arguments"] for p in pieces)) == {"path": "a.py"}
    assert events[-3]["choices"][0] == {"index": 0, "delta": {}, "finish_reason": "tool_calls"}  # type: ignore[index]
    assert events[-2]["choices"] == [] and events[-2]["usage"]["total_tokens"] == 15  # type: ignore[index]
    assert events[-1] == "[DONE]"


def test_openai_no_usage_without_include_usage_and_done_without_blank(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("hi", done_marker="no_blank", comments=True, role_chunk="empty"))
    text = sse(fake_llm)
    assert text.endswith("data: [DONE]\n") and not text.endswith("\n\n")
    assert ": ping\n\n" in text and '"usage"' not in text and '"content":""' in text


def test_openai_stream_errors(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply(steps=[Text("a"), StreamError("boom", style="legacy")]))
    assert 'error: {"code":500,"message":"boom","type":"server_error"}\n\ndata: [DONE]' in sse(fake_llm)


def test_split_writes_and_slow_first_byte_still_frame(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("abcdef", pieces=6, split_writes=True, first_byte_delay=0.05))
    chunks: list[bytes] = []
    with httpx.stream("POST", fake_llm.url + "/api/chat", json={"model": "m", "messages": [{"role": "user"}]}) as r:
        chunks.extend(r.iter_raw())
    body = b"".join(chunks)
    assert len(chunks) > 7  # halves arrived separately
    assert "".join(json.loads(x)["message"]["content"] for x in body.splitlines()) == "abcdef"


def test_client_disconnect_is_recorded(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply(steps=[Text("a"), Delay(0.05)] * 100))
    with httpx.stream("POST", fake_llm.url + "/api/chat", json={"model": "m", "messages": [{"role": "user"}]}) as r:
        next(r.iter_lines())
    req = fake_llm.chat_requests()[0]
    assert req.wait_done(5) and req.disconnected


def test_models_show_embed_and_version(fake_llm: FakeLLMServer) -> None:
    fake_llm.models = [FakeModel("llama3:8b", context_length=8192, capabilities=["completion"], architecture="llama")]
    assert httpx.get(fake_llm.url + "/").text == "Ollama is running"
    assert httpx.get(fake_llm.url + "/api/version").json()["version"]
    show = httpx.post(fake_llm.url + "/api/show", json={"model": "llama3:8b"}).json()
    assert show["model_info"]["llama.context_length"] == 8192 and show["capabilities"] == ["completion"]
    assert httpx.post(fake_llm.url + "/api/show", json={"model": "nope"}).status_code == 404
    assert httpx.get(fake_llm.url + "/v1/models").json()["data"][0]["id"] == "llama3:8b"
    assert httpx.get(fake_llm.url + "/api/ps").json()["models"][0]["context_length"] == 4096
    emb = httpx.post(fake_llm.url + "/api/embed", json={"model": "e", "input": "x"}).json()["embeddings"]
    assert len(emb) == 1 and len(emb[0]) == 8
    assert httpx.post(fake_llm.url + "/api/embed", json={"model": "e", "input": ["a", 1]}).status_code == 400
    data = httpx.post(fake_llm.url + "/v1/embeddings", json={"model": "e", "input": ["a", "b"]}).json()["data"]
    assert [d["index"] for d in data] == [0, 1]


def test_cli_serves_a_script_as_a_process(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"text": "from file", "pieces": 2}]))
    root = Path(__file__).resolve().parents[2]
    cmd = [sys.executable, "-m", "tests.fakes.fake_llm", "--script", str(script)]
    proc = subprocess.Popen(cmd, cwd=root, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split()[1]
        lines = httpx.post(url + "/api/chat", json={"model": "m", "messages": [{"role": "user"}]}).text.splitlines()
        assert "".join(json.loads(x)["message"]["content"] for x in lines) == "from file"
        recorded = httpx.get(url + "/_fake/requests").json()
        assert recorded[0]["path"] == "/api/chat"
    finally:
        proc.terminate()
        proc.wait(5)


def test_cli_reports_vision_and_logs_chat_bodies(tmp_path: Path) -> None:
    log = tmp_path / "bodies.jsonl"
    root = Path(__file__).resolve().parents[2]
    cmd = [sys.executable, "-m", "tests.fakes.fake_llm", "--model", "llava:7b", "--vision", "--log-bodies", str(log)]
    proc = subprocess.Popen(cmd, cwd=root, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split()[1]
        assert "vision" in httpx.post(url + "/api/show", json={"model": "llava:7b"}).json()["capabilities"]
        message = {"role": "user", "content": "what is it?", "images": ["iVBORw0KGgo="]}
        httpx.post(url + "/api/chat", json={"model": "llava:7b", "messages": [message]})
        logged = [json.loads(line) for line in log.read_text().splitlines()]
        assert logged == [{"path": "/api/chat", "json": {"model": "llava:7b", "messages": [message]}}]
    finally:
        proc.terminate()
        proc.wait(5)


def test_set_vision_answers_in_both_servers_words(fake_llm: FakeLLMServer) -> None:
    from tests.fakes import recorded

    fake_llm.props = recorded.props()
    fake_llm.set_vision(True)
    assert httpx.get(fake_llm.url + "/props").json()["modalities"] == {"audio": False, "video": False, "vision": True}
    assert "vision" in httpx.post(fake_llm.url + "/api/show", json={"model": "qwen3:8b"}).json()["capabilities"]
    fake_llm.set_vision(False)
    assert httpx.get(fake_llm.url + "/props").json()["modalities"]["vision"] is False
