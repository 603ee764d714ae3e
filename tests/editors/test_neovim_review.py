"""Issue 29 in real headless Neovim: a proposed edit opens as a diff the user can change before allowing it, hunk
by hunk; what they allowed is what lands on disk, and the model is told what they changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.editors.test_neovim import Interactive, Nvim, errors
from tests.editors.test_neovim import nvim as nvim  # the fixture
from tests.fakes.fake_llm import FakeLLMServer, Reply

pytestmark = pytest.mark.timeout(150)

BASE = "def total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
PROPOSED = "def total(xs):\n    return sum(xs) + 0\n\n\ndef mean(xs):\n    return total(xs) / max(1, len(xs))\n"


def told(fake_llm: FakeLLMServer) -> str:
    messages = fake_llm.chat_requests()[1].json["messages"]
    return str([m["content"] for m in messages if m["role"] == "tool"][-1])


def test_a_rejected_hunk_and_an_edited_line_are_what_gets_written_and_the_model_hears_of_both(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text(BASE)
    fake_llm.script(Reply.tool_call("write_file", {"path": "calc.py", "content": PROPOSED}), Reply.text("ok"))
    # The cursor starts on the first hunk: gr rejects it; then line 6 is rewritten by hand; gy allows.
    # gY (always allow) declined with n first: it stores a rule, so it takes a second yes.
    keys = "gYngr6G0Di    return total(xs) / (len(xs) or 1)<Esc>gy"
    result = nvim.run("review_diff.lua", setup={"file": "calc.py", "prompt": "Guard mean", "keys": keys})
    assert result["review_open"] and result["is_diff"], result
    assert result["tabs_pending"] == result["tabs_before"], "the review tab opened by itself"
    assert result["tabs_open"] == result["tabs_before"] + 1 and result["diff_windows"] == 2
    assert result["left"] == BASE.splitlines() and result["right"] == PROPOSED.splitlines()
    assert not result["left_modifiable"] and "gr reject hunk" in result["winbar"]
    assert result["file_before"] == BASE
    assert result["waited"] and result["stop_reason"] == "end_turn"
    assert result["file_after"] == BASE.replace("/ len(xs)", "/ (len(xs) or 1)")
    assert result["tabs_after"] == result["tabs_before"], "the review tab stayed open"
    note = told(fake_llm)
    assert "The user rejected 1 of the 2 hunks of your change (hunk 1)" in note, note
    assert "+    return total(xs) / (len(xs) or 1)" in note and "The user edited your proposal" in note, note
    assert "Write calc.py: Allow once (as you reviewed it)" in result["chat"]
    assert errors(result) == []


@pytest.mark.parametrize("columns", [150, 100])
def test_the_diff_reviews_main_keys_are_on_screen_whole_at_a_usual_width(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer, columns: int
) -> None:
    (workspace / "calc.py").write_text(BASE)
    fake_llm.script(Reply.tool_call("write_file", {"path": "calc.py", "content": PROPOSED}), Reply.text("ok"))
    result = nvim.run("review_diff.lua", setup={"file": "calc.py", "prompt": "Guard", "keys": "gy", "columns": columns})
    assert result["review_open"] and result["is_diff"], result
    bar, other = result["winbar"], result["base_winbar"]
    assert "gy allow" in bar and "gn reject" in bar, bar
    assert "<" not in bar + other, f"the hints were cut: {bar!r} {other!r}"
    # The rest of the keys are whole on screen too (on the other side's bar when the proposal's is full).
    for hint in ("gr reject hunk", "ga keep hunk", *(("gs ", "gY ", "gN ") if columns >= 150 else ())):
        assert hint in bar + other, (bar, other)
    assert result["waited"] and errors(result) == []


def test_write_in_the_diff_allows_the_proposal_as_it_is_typed_by_a_user(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text(BASE)
    fake_llm.script(Reply.tool_call("write_file", {"path": "calc.py", "content": PROPOSED}), Reply.text("ok"))
    ui = Interactive(nvim)
    try:
        ui.keys(":AgentChat Guard mean<CR>")
        ui.wait_for(lambda s: s["pending"] == 1, "the approval")
        ui.keys("<Esc>:AgentReview<CR>")
        state = ui.wait_for(lambda s: s["review_open"], "the diff review")
        assert state["review_focused"] and state["mode"] == "n" and state["review_text"] == PROPOSED.splitlines()
        ui.keys(":w<CR>")
        state = ui.wait_for(lambda s: s["turns"] >= 1, "the end of the turn")
        assert not state["review_open"]
    finally:
        ui.close()
    assert (workspace / "calc.py").read_text() == PROPOSED
    assert "reviewed" not in told(fake_llm)


def test_an_allowed_edit_leaves_the_users_unsaved_buffer_unsaved(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text(BASE)
    edit = {"path": "calc.py", "old_text": "sum(xs)", "new_text": "sum(xs) + 0"}
    fake_llm.script(Reply.tool_call("edit_file", edit), Reply.text("ok"))
    setup = {"file": "calc.py", "open_file": True, "unsaved": "# mine", "prompt": "Edit", "keys": "gy"}
    result = nvim.run("review_diff.lua", setup=setup)
    assert result["waited"] and result["stop_reason"] == "end_turn"
    assert result["file_after"] == BASE, "the user's unsaved line was saved with the agent's edit"
    assert result["buffer"] == [*BASE.replace("sum(xs)", "sum(xs) + 0").splitlines(), "# mine"]
    assert result["buffer_modified"]
    assert "has unsaved changes of the user in the editor" in told(fake_llm)
    assert errors(result) == []
