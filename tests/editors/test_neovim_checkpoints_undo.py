"""Issue 29 item 6 in real headless Neovim: undo only one turn, undo a restore, and a restore preview that is drawn
before its question (and names the files the user made after the turn)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.editors.test_neovim import Nvim, _make_git_repo, errors
from tests.editors.test_neovim import nvim as nvim  # the fixture
from tests.fakes.fake_llm import FakeLLMServer, Reply

pytestmark = pytest.mark.timeout(200)

CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
FIXED = CALC.replace("return a - b\n\n", "return a + b\n\n")
USER = FIXED.replace("def sub(a, b):\n    return a - b", "def sub(a, b):\n    return a - b  # mine")


def test_undo_only_a_turn_then_undo_that_and_restore_back_with_a_drawn_preview(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    _make_git_repo(workspace)
    (workspace / "calc.py").write_text(CALC)
    fake_llm.script(
        Reply.tool_call(
            "edit_file", {"path": "calc.py", "old_text": "return a - b\n\n", "new_text": "return a + b\n\n"}
        ),
        Reply.tool_call("write_file", {"path": "notes.txt", "content": "new notes\n"}),
        Reply.text("Fixed."),
    )
    steps = [
        ["Fix add", "undo_turn"],
        ["Undo the last restore", None],
        ["Fix add", "restore"],
        ["Undo the last restore", None],
    ]
    result = nvim.run(
        "checkpoints_undo.lua", setup={"approval_ui": "select", "prompt": "Fix add", "user_calc": USER, "steps": steps}
    )
    assert result["waited"], result
    undo_turn, undo_undo, restore, undo_restore = result["steps"]
    assert all(s["ok"] and s["event"]["restored"] for s in result["steps"]), result["steps"]
    # Only the turn's own change is reversed: the user's later line and file stay.
    assert undo_turn["files"] == {
        "calc": USER.replace("a + b", "a - b", 1),
        "notes": None,
        "mine": "the user made this later\n",
    }
    assert undo_turn["event"]["undo_checkpoint"]
    assert undo_undo["files"] == {"calc": USER, "notes": "new notes\n", "mine": "the user made this later\n"}
    # Back to this point: everything goes, the user's later file too, but the question said so, and the undo
    # brings it back.
    assert restore["files"] == {"calc": CALC, "notes": None, "mine": None}
    assert undo_restore["files"] == {"calc": USER, "notes": "new notes\n", "mine": "the user made this later\n"}

    confirms = [s for s in result["selects"] if s["kind"] == "agent_restore_confirm"]
    assert [c["items"][0] for c in confirms] == [
        "Undo only this turn",
        "Undo the last restore",
        "Restore files",
        "Undo the last restore",
    ]
    assert "mine.txt (deleted, made after this turn" in confirms[2]["prompt"]
    assert "mine.txt" not in confirms[0]["prompt"]
    # The preview tab is on the screen while each question is asked (it was drawn first).
    assert "# Undoing only this turn: " in confirms[0]["screen"], confirms[0]["screen"]
    assert "+    return a - b" in confirms[0]["screen"]
    assert "# Restoring to before: " in confirms[2]["screen"]
    assert "made after this turn would be deleted" in confirms[2]["screen"]
    checkpoint_lists = [s for s in result["selects"] if s["kind"] == "agent_checkpoint"]
    assert checkpoint_lists[1]["items"][0].startswith("Undo the last restore")
    assert errors(result) == []
