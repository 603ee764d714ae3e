"""Issue 42 in Neovim's real terminal UI (in a pseudo-terminal), where Neovim's own prompts live: a headless Neovim
never asks "changed since reading it" nor draws inputlist's "Type number", so these run as a user sees them.

- `:w` after the agent edited the open file (one without a final newline) saves at once: no "WARNING: The file has
  been changed since reading it!!!" and its y/n question;
- the workspace-trust question answered in Neovim's own list (inputlist): the turn's approval is on screen the
  moment the answer is given, with no Esc or other key, and the verify command trusted meanwhile runs in that turn."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from tests.editors.test_neovim import Nvim
from tests.editors.test_neovim import nvim as nvim  # the fixture
from tests.editors.test_neovim_tui import Tui
from tests.fakes.fake_llm import FakeLLMServer, Reply

pytestmark = pytest.mark.timeout(180)

CHANGED = b"changed since reading it"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace as deep as real ones are: a message that names a path in it must still fit Neovim's message line
    (a wider one stops Neovim at "Press ENTER"; the trust notice once named the whole path of the config file)."""
    root = tmp_path / "projects" / "a-client-with-a-long-name" / "services" / "the-service-this-chat-is-about"
    root.mkdir(parents=True)
    return root


def _wait_disk(ui: Tui, path: Path, text: str, mark: int, what: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if CHANGED in ui.out[mark:]:
            raise AssertionError(f"Neovim asked whether to overwrite a file that changed since reading it ({what})")
        if path.read_text() == text:
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}: {path.read_text()!r}")


def test_saving_a_file_the_agent_edited_asks_nothing(nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer) -> None:
    tail = workspace / "tail.txt"
    tail.write_bytes(b"a\nb")  # no final newline
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "tail.txt", "old_text": "b", "new_text": "c"}), Reply.text("Changed.")
    )
    ui = Tui(nvim, setup={"approval": "allow", "show_messages": True})
    try:
        ui.keys(":edit tail.txt<CR>:AgentChat Change b to c in tail.txt<CR>")
        ui.wait_for(lambda s: s["turns"] >= 1, "the turn")
        assert tail.read_bytes() == b"a\nc"
        mark = len(ui.out)
        ui.keys("<Esc><C-w>t")  # back to the file's window (:drop would re-read a changed file first)
        ui.wait_for(lambda s: s["current"] == "tail.txt" and s["mode"] == "n", "the file's window")
        ui.keys("ggOtop<Esc>:w<CR>")  # the user's own change, saved as users save
        _wait_disk(ui, tail, "top\na\nc\n", mark, "the user's save")
        state = ui.wait_for(lambda s: s["mode"] == "n", "normal mode after the save")
        assert state["current_lines"] == ["top", "a", "c"], state
        time.sleep(0.5)  # whatever the save still draws
        assert CHANGED not in ui.out[mark:] and b"(y/n)" not in ui.out[mark:]
        ui.no_prompt("the save")
    finally:
        ui.close()


def test_after_the_trust_question_in_neovims_own_list_the_approval_shows_without_a_key(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    check = f"{sys.executable} -c \"print('VERIFY-' + 'RAN')\""
    (workspace / ".agent-server.toml").write_text(f"[agent]\nverify_command = {json.dumps(check)}\n")
    fake_llm.script(Reply.tool_call("write_file", {"path": "hello.txt", "content": "hi\n"}), Reply.text("Done."))
    ui = Tui(nvim, setup={"show_messages": True})
    try:
        ui.keys(":AgentChat Write hi into hello.txt<CR>")
        mark = ui.wait_output(b"Type number", 0, "the trust question in Neovim's list")
        assert b"Trust this workspace" in ui.out, "the list shows the choices"
        ui.keys("2<CR>")  # Trust this workspace
        # No other key: the approval is drawn on the screen as it arrives.
        ui.wait_output(b"approval waiting: Write hello.txt", mark, "the approval, drawn without a key")
        state = ui.wait_for(lambda s: s["pending"] == 1, "the pending approval")
        assert state["notice"] and not state["review_open"], state
        ui.keys("<Esc>:AgentReview<CR>")
        ui.wait_for(lambda s: s["review_focused"], "the review")
        ui.keys("gy")  # the edit's diff tab: allow
        mark = ui.wait_output(b"approval waiting: Run", mark, "the verify command's approval, drawn without a key")
        ui.keys(":AgentReview<CR>")
        ui.wait_for(lambda s: s["review_focused"], "the verify command's review")
        ui.keys("a")  # the command's window: allow once
        state = ui.wait_for(lambda s: s["turns"] >= 1, "the end of the turn")
        assert "VERIFY-RAN" in state["chat"], state["chat"]
        ui.no_prompt("the end")
    finally:
        ui.close()
    assert (workspace / "hello.txt").read_text() == "hi\n"
