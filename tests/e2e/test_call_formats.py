"""Every call format small models write, through the real server (issue 40): pythonic lists (Llama 3.2, LFM2's
tokens), Mistral's `[TOOL_CALLS]` in both its shapes, gpt-oss's Harmony channels, and reasoning replayed only to
models whose template keeps it. The answers are the published shapes of tests/fixtures/call_formats.json with this
server's tool names (none of the models here writes these formats, so none is recorded from a run here)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import prompt, sent_messages, tool_results, validate_updates
from tests.fakes.fake_llm import FakeLLMServer, FakeModel, Reply
from tests.lsp_client import LspClient

CALC = "def add(a, b):\n    return a - b\n"


def cards(server: LspClient, sid: str) -> list[str]:
    return [u.get("title", "") for u in server.updates(sid) if u["sessionUpdate"] == "tool_call"]


ANSWERS = {
    "pythonic": "[read_file(path='calc.py')]",
    "lfm2": "<|tool_call_start|>[read_file(path='calc.py')]<|tool_call_end|>",
    "mistral list": '[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "calc.py"}}]',
    "mistral v11": '[TOOL_CALLS]read_file[ARGS]{"path": "calc.py"}',
}


@pytest.mark.parametrize("shape", list(ANSWERS))
async def test_a_call_in_each_format_runs_and_its_text_is_never_the_answer(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, shape: str
) -> None:
    (workspace / "calc.py").write_text(CALC)
    fake_llm.script(Reply.text(ANSWERS[shape], pieces=7), Reply.text("add returns a - b, which is a bug."))
    server = await start_server(workspace, llm_options(fake_llm, "openai"))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "Read calc.py and tell me what add does.") == "end_turn"
    assert len(cards(server, sid)) == 1  # the call is a tool card
    assert "return a - b" in tool_results(sent_messages(fake_llm, 1))[-1]  # its result went back to the model
    shown = server.text(sid)
    assert "read_file" not in shown and "TOOL_CALLS" not in shown and "<|" not in shown, shown
    assert shown.endswith("add returns a - b, which is a bug.")
    validate_updates(server)


HARMONY_CALL = (
    "<|channel|>analysis<|message|>Need to read calc.py first.<|end|>"
    "<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json"
    '<|message|>{"path":"calc.py"}<|call|>'
)
HARMONY_ANSWER = (
    "<|channel|>analysis<|message|>add subtracts: a bug.<|end|>"
    "<|start|>assistant<|channel|>final<|message|>add returns a - b, which is a bug.<|return|>"
)


async def test_gpt_oss_harmony_shows_analysis_as_thinking_runs_the_call_and_answers_with_final_only(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text(CALC)
    fake_llm.models = [FakeModel("gpt-oss-20b", capabilities=["completion", "tools"])]
    fake_llm.script(Reply.text(HARMONY_CALL, pieces=23), Reply.text(HARMONY_ANSWER, pieces=19))
    server = await start_server(workspace, llm_options(fake_llm, "openai"))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "What does add in calc.py do?") == "end_turn"
    assert server.text(sid) == "add returns a - b, which is a bug."
    thoughts = server.text(sid, kind="agent_thought_chunk")
    assert "Need to read calc.py first." in thoughts and "add subtracts: a bug." in thoughts
    assert "<|" not in thoughts
    assert len(cards(server, sid)) == 1
    second = sent_messages(fake_llm, 1)
    assert "return a - b" in tool_results(second)[-1]
    # Harmony keeps the chain of thought of a tool-calling turn: it goes back with the call.
    called = next(m for m in second if m["role"] == "assistant" and m.get("tool_calls"))
    assert called.get("reasoning_content") == "Need to read calc.py first."
    validate_updates(server)


def _assistant_turns(fake: FakeLLMServer, index: int) -> list[dict[str, Any]]:
    return [m for m in sent_messages(fake, index) if m["role"] == "assistant"]


async def _two_rounds(start: Start, workspace: Path, fake: FakeLLMServer, provider: str) -> None:
    (workspace / "calc.py").write_text(CALC)
    call = {"tool_calls": [{"name": "read_file", "arguments": {"path": "calc.py"}}]}
    fake.script(
        Reply.from_dict({"steps": [{"thinking": "I should read calc.py."}, call]}),
        Reply.text("It subtracts."),
    )
    server = await start(workspace, llm_options(fake, provider))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "What does add do?") == "end_turn"


@pytest.mark.parametrize(
    ("model", "provider", "field", "kept"),
    [
        ("qwen3:8b", "ollama", "thinking", True),  # Qwen3's template keeps reasoning within the turn
        ("deepseek-r1:8b", "ollama", "thinking", False),  # R1's template drops it
        ("gpt-oss-20b", "openai", "reasoning_content", True),
        ("some-model", "openai", "reasoning_content", False),
    ],
)
async def test_reasoning_goes_back_only_to_models_whose_template_keeps_it(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, model: str, provider: str, field: str, kept: bool
) -> None:
    fake_llm.models = [FakeModel(model)]
    await _two_rounds(start_server, workspace, fake_llm, provider)
    called = next(m for m in _assistant_turns(fake_llm, 1) if m.get("tool_calls"))
    assert (called.get(field) == "I should read calc.py.") is kept, json.dumps(called)[:300]


@pytest.mark.parametrize(("template", "kept"), [("{{ m.reasoning_content }}", True), ("{{ m.content }}", False)])
async def test_a_llama_cpp_template_says_itself_whether_it_reads_reasoning(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, template: str, kept: bool
) -> None:
    fake_llm.models = [FakeModel("qwen3-4b")]  # the name would say "keeps": the template wins
    fake_llm.props = {"default_generation_settings": {"n_ctx": 8192}, "chat_template": template, "total_slots": 1}
    await _two_rounds(start_server, workspace, fake_llm, "openai")
    called = next(m for m in _assistant_turns(fake_llm, 1) if m.get("tool_calls"))
    assert ("reasoning_content" in called) is kept
