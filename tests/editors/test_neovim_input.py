"""Issue 42, the chat in a real Neovim: <C-s> sends and stays in insert mode for the next message (keys typed as a
user types them, in Neovim's own main loop); a prompt given to :AgentChat that cannot be sent is kept; an answer cut
by a crash of the server stays in the chat after the resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.editors.test_neovim import Interactive, Nvim
from tests.editors.test_neovim import nvim as nvim  # the fixture
from tests.fakes.fake_llm import Delay, FakeLLMServer, Reply, Text

pytestmark = pytest.mark.timeout(120)


def test_ctrl_s_sends_and_stays_in_insert_mode_for_the_next_message(nvim: Nvim, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("First answer."), Reply.text("Second answer."))
    ui = Interactive(nvim)
    try:
        ui.keys(":AgentChat<CR>")
        ui.wait_for(lambda s: s["input_focused"] and s["mode"].startswith("i"), "the input in insert mode")
        ui.keys("first question<C-s>")
        state = ui.wait_for(lambda s: s["turns"] >= 1, "the first answer")
        assert state["input_focused"] and state["mode"].startswith("i") and state["input"] == [""], state
        ui.keys("second question<C-s>")  # typed at once, no `i` needed
        state = ui.wait_for(lambda s: s["turns"] >= 2, "the second answer")
        assert "## You\nsecond question" in state["chat"] and "Second answer." in state["chat"], state["chat"]
    finally:
        ui.close()
    sent = [r.json["messages"][-1]["content"] for r in fake_llm.chat_requests()]
    assert sent == ["first question", "second question"]


def test_agent_chat_keeps_a_prompt_with_a_bad_image_in_the_input(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "notes.txt").write_text("not a picture\n")
    fake_llm.script(Reply.text("Looked."))
    ui = Interactive(nvim)
    try:
        ui.keys(":AgentChat what is in #image notes.txt please<CR>")
        state = ui.wait_for(lambda s: s["input_focused"] and s["mode"].startswith("i"), "the input")
        # Not sent, not lost: the prompt waits in the input, the cursor at its end, to fix and send.
        assert state["input"] == ["what is in #image notes.txt please"], state
        assert "## You" not in state["chat"], state["chat"]
        ui.keys("<C-w>")  # deletes "please": the cursor was at the end of the prompt
        ui.wait_for(lambda s: s["input"] == ["what is in #image notes.txt "], "the edited prompt")
        ui.keys("<C-u>what is it<C-s>")
        state = ui.wait_for(lambda s: s["turns"] >= 1, "the answer")
    finally:
        ui.close()
    assert [r.json["messages"][-1]["content"] for r in fake_llm.chat_requests()] == ["what is it"]


def test_an_answer_cut_by_a_crash_stays_in_the_chat_after_the_resume_with_a_note(
    nvim: Nvim, fake_llm: FakeLLMServer
) -> None:
    steps: list[Any] = [Text("Once upon a time ")]
    for i in range(200):
        steps += [Text(f"chunk{i} "), Delay(0.1)]
    fake_llm.script(Reply(steps=steps))
    result = nvim.run("restart_partial.lua")
    assert result["streaming"] and result["restarted"], result["before"]
    chat = result["chat"]
    assert "## You\nTell me a long story" in chat, chat
    assert "Once upon a time chunk0 chunk1 chunk2 chunk3" in chat, chat
    after = chat.split("Once upon a time", 1)[1]
    assert "the server stopped while answering: the part above was not saved" in after, chat
    assert after.rstrip().endswith("]_") and "resumed:" in after, chat
