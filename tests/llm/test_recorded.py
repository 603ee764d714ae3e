"""The fake LLM replaying exchanges recorded from the real llama-server, through the real providers and the agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_server.errors import ContextOverflowError
from agent_server.llm.openai_compat import OpenAIProvider
from agent_server.messages import Finish, PromptProgress
from tests.e2e.conftest import Start, llm_options, new_session, start_server
from tests.e2e.helpers import prompt
from tests.fakes import recorded
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.llm.helpers import request, run

MODEL = recorded.models()["data"][0]["id"]
__all__ = ["start_server"]  # the e2e fixture, for the test that runs the real agent-server


def as_llamacpp(fake: FakeLLMServer) -> None:
    fake.props = recorded.props()
    fake.models = recorded.fake_models()
    fake.flavor = "openai"


async def test_model_info_takes_the_real_window_and_tool_support_from_props(
    fake_llm: FakeLLMServer, openai: OpenAIProvider
) -> None:
    as_llamacpp(fake_llm)
    info = await openai.model_info(MODEL)
    props = recorded.props()
    assert info.context_length == props["default_generation_settings"]["n_ctx"] == 2048
    assert info.supports_tools is props["chat_template_caps"]["supports_tools"] is False
    assert info.details["server_facts"]["model_alias"] == MODEL
    # Without /props, /v1/models' meta.n_ctx (the running window) still wins over n_ctx_train.
    fake_llm.props = None
    bare = await openai.model_info(MODEL)
    assert bare.context_length == 2048 and bare.supports_tools is None


async def test_lmstudio_loaded_context_and_tool_use(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    fake_llm.models = recorded.fake_models()[:1]
    fake_llm.lmstudio_models = [
        {"id": MODEL, "type": "llm", "state": "loaded", "max_context_length": 32768, "loaded_context_length": 4096,
         "capabilities": ["tool_use"]},
    ]  # fmt: skip
    info = await openai.model_info(MODEL)
    assert (info.context_length, info.supports_tools, info.supports_vision) == (4096, True, False)
    fake_llm.lmstudio_models = [{"id": MODEL, "type": "vlm", "state": "not-loaded", "max_context_length": 8192}]
    info = await openai.model_info(MODEL)
    assert (info.context_length, info.supports_tools, info.supports_vision) == (8192, None, True)


async def test_a_recorded_stream_parses_to_its_text_and_usage(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    as_llamacpp(fake_llm)
    fake_llm.script(recorded.stream_reply("llamacpp_stream.sse"))
    out = await run(openai, request("What is a Python list?"))
    events = recorded.stream_events("llamacpp_stream.sse")
    expected = "".join((c.get("delta") or {}).get("content") or "" for e in events for c in e.get("choices") or [])
    assert out.text == expected and expected
    timings = next(e["timings"] for e in reversed(events) if "timings" in e)
    usage = next(e["usage"] for e in reversed(events) if e.get("usage"))
    assert out.finish.usage.prompt_tokens == usage["prompt_tokens"] == timings["prompt_n"] + timings["cache_n"]
    assert out.finish.usage.completion_tokens == usage["completion_tokens"]


async def test_the_real_overflow_error_names_the_window(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    as_llamacpp(fake_llm)
    fake_llm.script(recorded.error_reply("llamacpp_overflow.json"))
    with pytest.raises(ContextOverflowError) as info:
        await run(openai, request("x"))
    assert info.value.n_ctx == 2048 and (info.value.prompt_tokens or 0) > 2048


async def test_recorded_dropped_tools_are_detected_with_the_real_token_counts(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """The real server's answer to a request with the agent's tools: its prompt_tokens show the tools were dropped."""
    as_llamacpp(fake_llm)
    fake_llm.props = None  # a server that does not say its template cannot render tools
    fake_llm.script(recorded.stream_reply("llamacpp_tools_dropped.sse"), Reply.text("Answer with tools in the prompt."))
    client = await start_server(workspace, llm_options(fake_llm, "openai", model=MODEL))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Read app.py and tell me what it does.") == "end_turn"
    first, second = (r.json for r in fake_llm.chat_requests()[:2])
    assert first.get("tools") and "tools" not in second
    assert "dropped them" in client.text(sid)


def test_the_recorded_tools_request_really_lost_its_tools() -> None:
    """The recording itself: a prompt of a few hundred tokens for a dozen tool definitions."""
    events = recorded.stream_events("llamacpp_tools_dropped.sse")
    usage = next(e["usage"] for e in reversed(events) if e.get("usage"))
    assert 0 < usage["prompt_tokens"] < 400


def doctor(fake: FakeLLMServer, workspace: Path, env: dict[str, str] | None = None) -> dict[str, object]:
    import json
    import os
    import subprocess
    import sys

    args = ["doctor", "--json", "--provider", "openai", "--base-url", fake.url, "--model", MODEL, "-w", str(workspace)]
    proc = subprocess.run(
        [sys.executable, "-m", "agent_server", *args],
        capture_output=True, text=True, timeout=60, env={**os.environ, "NO_COLOR": "1", **(env or {})},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report: dict[str, object] = json.loads(proc.stdout)
    return report


def test_doctor_shows_the_window_and_tool_mode_llamacpp_reports(fake_llm: FakeLLMServer, workspace: Path) -> None:
    as_llamacpp(fake_llm)
    report = doctor(fake_llm, workspace)
    (model,) = report["models"]  # type: ignore[misc]
    assert (model["context_length"], model["tools"]) == (2048, "prompt-based")
    assert any("llama.cpp /props" in n and "n_ctx=2048" in n for n in report["notes"])  # type: ignore[attr-defined]


def test_doctor_shows_dropped_tools_a_session_remembered(
    fake_llm: FakeLLMServer, workspace: Path, tmp_path: Path
) -> None:
    from agent_server.llm.base import ModelInfo
    from agent_server.llm.capabilities import info_to_dict
    from agent_server.store import Store

    fake_llm.models = recorded.fake_models()
    db = tmp_path / "agent.db"
    learned = ModelInfo(
        name=MODEL, supports_tools=False, details={"tools_dropped": {"prompt_tokens": 180, "tool_tokens": 1637}}
    )
    with Store(db) as store:
        store.put_capabilities(fake_llm.url, MODEL, info_to_dict(learned))
    report = doctor(fake_llm, workspace, {"AGENT_SERVER_STORE__PATH": str(db)})
    (model,) = report["models"]  # type: ignore[misc]
    assert model["tools"] == "prompt-based"
    assert any("dropped native tool definitions" in n and "180" in n for n in report["notes"])  # type: ignore[attr-defined]


async def test_recorded_prompt_progress_parses_before_the_answer(
    fake_llm: FakeLLMServer, openai: OpenAIProvider
) -> None:
    """xllamacpp's `prompt_progress` chunks (one per 256-token batch) become PromptProgress events, then the answer."""
    as_llamacpp(fake_llm)
    fake_llm.script(recorded.stream_reply("llamacpp_progress.sse"))
    out = await run(openai, request(progress=True))
    assert fake_llm.chat_requests()[0].json["return_progress"] is True
    progress = [e for e in out.events if isinstance(e, PromptProgress)]
    fractions = [p.fraction for p in progress]
    assert len(progress) >= 3 and fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    finish = out.events[-1]
    assert isinstance(finish, Finish) and {p.total for p in progress} == {finish.usage.prompt_tokens}
    last = max(i for i, e in enumerate(out.events) if isinstance(e, PromptProgress))
    assert not any(isinstance(e, PromptProgress) for e in out.events[last + 1 :])
    assert isinstance(out.events[-1], Finish)
    # Without the option the field is not sent (other servers may reject it).
    fake_llm.script(Reply.text("ok"))
    await run(openai, request())
    assert "return_progress" not in fake_llm.chat_requests()[1].json
