"""Issue 42 in a real Neovim running its own main loop, keys typed as a user types them: an approval never takes the
focus or the keys typed for something else. It waits behind a notice until the user opens it on purpose
(:AgentReview, or the review key in the chat); only there do its keys answer, and the answers that store a rule
take a second yes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.editors.test_neovim import Interactive, Nvim
from tests.editors.test_neovim import nvim as nvim  # the fixture
from tests.fakes.fake_llm import Delay, FakeLLMServer, Reply

pytestmark = pytest.mark.timeout(150)

MINE = "one\ntwo\nthree\n"
BASE = "def add(a, b):\n    return a - b\n"
PROPOSED = "def add(a, b):\n    return a + b\n"


@pytest.mark.parametrize(("review_diff", "answer"), [(False, "a"), (True, "gy")])
def test_keys_typed_in_the_users_own_window_never_answer_a_waiting_approval(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer, review_diff: bool, answer: str
) -> None:
    (workspace / "notes.txt").write_text(MINE)
    (workspace / "calc.py").write_text(BASE)
    fake_llm.script(Reply.tool_call("write_file", {"path": "calc.py", "content": PROPOSED}), Reply.text("over"))
    ui = Interactive(nvim, setup={"review_diff": review_diff})
    try:
        ui.keys(":edit notes.txt<CR>")
        ui.keys(":AgentChat Fix the sign<CR>")
        ui.wait_for(lambda s: s["input_focused"], "the chat input")
        ui.keys("<Esc><C-w>t")  # back to the user's own window, in normal mode
        state = ui.wait_for(lambda s: s["pending"] == 1 and s["current"] == "notes.txt", "the approval")
        assert state["notice"] and not state["review_open"] and state["mode"] == "n", state
        assert state["tabs"] == 1, "the diff review opened a tab by itself"
        # The user goes on editing their file: A (append), r (replace), dd, x act on it, never on the approval.
        ui.keys("Ax<Esc>")
        ui.keys("rZ")
        ui.keys("jdd")
        ui.keys("0x")
        state = ui.wait_for(lambda s: s["current_lines"] == ["oneZ", "hree"], "the user's own edits")
        assert state["pending"] == 1 and not state["review_open"] and state["current"] == "notes.txt", state
        assert (workspace / "calc.py").read_text() == BASE
        # The deliberate way: :AgentReview opens the review, with the proposal untouched, and its keys answer.
        ui.keys(":AgentReview<CR>")
        state = ui.wait_for(lambda s: s["review_focused"], "the review after :AgentReview")
        assert state["mode"] == "n" and not state["notice"], state
        if review_diff:
            assert state["review_text"] == PROPOSED.splitlines() and state["tabs"] == 2, state
        else:
            assert "+    return a + b" in state["review_text"], state
        ui.keys(answer)
        state = ui.wait_for(lambda s: s["turns"] >= 1, "the end of the turn")
        assert state["pending"] == 0 and not state["notice"] and state["tabs"] == 1, state
    finally:
        ui.close()
    assert (workspace / "calc.py").read_text() == PROPOSED
    assert (workspace / "notes.txt").read_text() == MINE  # the user's edits are theirs to save


def test_always_allow_needs_a_second_yes_because_it_stores_a_rule(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    run = Reply.tool_call("run_command", {"command": "echo always-ok"})
    fake_llm.script(run, Reply.text("Ran it."), Reply.tool_call("run_command", {"command": "echo always-ok"}),
                    Reply.text("Ran it again."))  # fmt: skip
    ui = Interactive(nvim)
    try:
        ui.keys(":AgentChat Run the echo<CR>")
        ui.wait_for(lambda s: s["pending"] == 1, "the approval")
        ui.keys("<Esc>:AgentReview<CR>")
        ui.wait_for(lambda s: s["review_focused"], "the review")
        ui.keys("An")  # A, then no: nothing is answered, nothing stored
        state = ui.wait_for(lambda s: s["mode"] == "n", "the confirmation declined")
        assert state["pending"] == 1 and state["review_focused"], state
        ui.keys("Ay")
        state = ui.wait_for(lambda s: s["turns"] >= 1, "the end of the turn")
        assert "Run `echo always-ok`: echo always-ok: Always allow" in state["chat"], state["chat"]
        # The stored rule: the same command in the next turn is not asked about.
        ui.keys(":AgentChat Run it again<CR>")
        state = ui.wait_for(lambda s: s["turns"] >= 2, "the second turn")
        assert state["pending"] == 0 and "Ran it again." in state["chat"], state
    finally:
        ui.close()


@pytest.mark.parametrize("review_diff", [False, True])
def test_a_message_being_typed_keeps_its_keys_and_the_chat_key_opens_the_approval(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer, review_diff: bool
) -> None:
    (workspace / "calc.py").write_text(BASE)
    ask = Reply.tool_call("write_file", {"path": "calc.py", "content": PROPOSED})
    ask.steps.insert(0, Delay(3))  # the user is typing the next message when the question comes
    fake_llm.script(ask, Reply.text("over"))
    ui = Interactive(nvim, setup={"review_diff": review_diff})
    try:
        ui.keys(":AgentChat Fix the sign<CR>")
        ui.wait_for(lambda s: s["input_focused"] and s["mode"].startswith("i"), "the input in insert mode")
        ui.keys("half a thought")
        state = ui.wait_for(lambda s: s["pending"] == 1, "the approval")
        assert state["input_focused"] and state["mode"].startswith("i") and not state["review_open"], state
        ui.keys(" more words")
        ui.wait_for(lambda s: s["input"] == ["half a thought more words"], "the typing in the input")
        # Back in normal mode the focus stays where the user is: no review takes it.
        ui.keys("<Esc>")
        state = ui.wait_for(lambda s: s["mode"] == "n", "normal mode")
        assert state["input_focused"] and not state["review_open"] and state["notice"], state
        ui.keys("ga")  # the chat's review key
        state = ui.wait_for(lambda s: s["review_focused"], "the review after ga")
        ui.keys("gy" if review_diff else "a")
        state = ui.wait_for(lambda s: s["turns"] >= 1, "the end of the turn")
        assert state["input"] == ["half a thought more words"], state
    finally:
        ui.close()
    assert (workspace / "calc.py").read_text() == PROPOSED


@pytest.mark.parametrize("review_diff", [True, False])
def test_agent_stop_closes_the_review_it_leaves_behind(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer, review_diff: bool
) -> None:
    (workspace / "calc.py").write_text(BASE)
    fake_llm.script(Reply.tool_call("write_file", {"path": "calc.py", "content": PROPOSED}), Reply.text("never"))
    result = nvim.run("stop_review.lua", setup={"prompt": "Fix the sign", "review_diff": review_diff})
    assert result["pending"] and result["review_win"]
    if review_diff:
        assert result["tabs_open"] == result["tabs_before"] + 1
    assert result["waited"] and result["stop_reason"] == "cancelled"
    assert result["tabs_after"] == result["tabs_before"], "the review tab stayed open"
    assert not result["review_win_after"] and result["pending_after"] == 0 and not result["notice_after"]
    assert (workspace / "calc.py").read_text() == BASE
    assert "Write calc.py: cancelled" in result["chat"]
