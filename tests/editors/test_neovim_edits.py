"""Issue 28 in real headless Neovim: diagnostics from a real language server after an edit reach the model, and
"Allow for this session" with the reason the request asks."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.editors.test_neovim import Nvim, errors
from tests.editors.test_neovim import nvim as nvim  # the fixture
from tests.fakes.fake_llm import FakeLLMServer, Reply

pytestmark = pytest.mark.timeout(150)


def test_the_error_an_edit_introduced_reaches_the_model_from_the_language_server(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "total.py").write_text("import os\n\n\ndef total(xs):\n    return sum(xs)\n")
    edit = {"path": "total.py", "old_text": "sum(xs)", "new_text": "sum(xs) + offset"}
    fake_llm.script(Reply.tool_call("edit_file", edit), Reply.text("Added the offset."))
    result = nvim.run(
        "edits_diagnostics.lua",
        setup={
            "file": "total.py",
            "prompt": "Add the offset",
            "approval": "allow",
            "ruff_cmd": [sys.executable, "-m", "ruff", "server"],
        },
    )
    assert result["ruff_attached"] and result["ruff_ready"], "ruff server did not attach or report"
    assert result["waited"] and result["stop_reason"] == "end_turn"
    assert any("offset" in m for m in result["buffer_diagnostics"]), result["buffer_diagnostics"]
    before, after = result["answers"]  # before the edit (at once), after it (once settled)
    assert "after" not in before and isinstance(after["after"], int) and after["ok"]
    messages = fake_llm.chat_requests()[1].json["messages"]
    tool_result = [m["content"] for m in messages if m["role"] == "tool"][-1]
    assert "total.py:5:" in tool_result and "Undefined name `offset`" in tool_result, tool_result
    assert "`os` imported but unused" not in tool_result  # there before the edit
    assert errors(result) == []


@pytest.mark.parametrize("columns", [150, 80])
def test_allow_for_this_session_shows_why_and_is_not_asked_again(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer, columns: int
) -> None:
    call = Reply.tool_call("run_command", {"command": "echo session-ok"})
    fake_llm.script(call, Reply.text("Ran it."), Reply.tool_call("run_command", {"command": "echo session-ok"}),
                    Reply.text("Ran it again."))  # fmt: skip
    result = nvim.run("approval_session.lua", setup={"columns": columns})
    assert result["review_open"]
    review = "\n".join(result["review"])
    assert "Asks because:\n  - `echo session-ok`: no rule or earlier answer allows it" in review, review
    assert "Asked because" not in review, f"the reason is shown twice:\n{review}"
    # Neovim cuts a footer wider than the float: every key must be whole, in the border or listed under the change.
    footer = "".join(chunk[0] for chunk in result["footer"])
    assert len(footer) <= result["review_width"], (footer, result["review_width"])
    shown = footer + "\n" + review
    for hint in ("a allow", "r reject", "s ", "A ", "R "):
        assert hint in shown, shown
    assert "a allow" in footer and "r reject" in footer, footer
    assert result["first_done"] and result["second_done"]
    assert not result["asked_again"]
    assert "Ran it again." in result["chat"]
    assert errors(result) == []
