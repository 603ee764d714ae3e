"""Issue 42 in Neovim's real terminal UI (in a pseudo-terminal): after a checkpoint restore, its undo and a restore
with the conversation, Neovim never stops at a "Press ENTER" prompt (which would take the next key typed for
something else). The questions are answered in Neovim's own vim.ui.select (inputlist), as a user answers them."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.editors.test_neovim import NVIM, Interactive, Nvim
from tests.editors.test_neovim import nvim as nvim  # the fixture
from tests.fakes.fake_llm import FakeLLMServer, Reply

pytestmark = pytest.mark.timeout(180)

PROMPT = b"Press ENTER"


class Tui(Interactive):
    """Interactive, but with Neovim's terminal UI drawing into a pseudo-terminal (a headless Neovim never prompts)."""

    def __init__(self, nvim: Nvim, setup: dict[str, Any] | None = None) -> None:
        self.out = bytearray()
        super().__init__(nvim, setup)

    def _spawn(self, argv: list[str], cwd: Path) -> None:
        env = {**self.env, "TERM": "xterm-256color"}
        pid, fd = pty.fork()
        if pid == 0:  # the child: Neovim with its UI on the pseudo-terminal
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
        self.pid, self.fd = pid, fd
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            self.out.extend(data)

    def wait_output(self, text: bytes, after: int, what: str, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            at = self.out.find(text, after)
            if at >= 0:
                return at + len(text)
            self.no_prompt(what)
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}")

    def no_prompt(self, what: str) -> None:
        if PROMPT in self.out:
            raise AssertionError(f"Neovim stopped at a Press ENTER prompt while waiting for {what}")

    def wait_for(self, pred: Any, what: str, timeout: float = 30) -> dict[str, Any]:
        # A Press ENTER prompt blocks the state query: short queries, and the screen checked between them.
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.no_prompt(what)
            try:
                state = self.state()
            except subprocess.TimeoutExpired:
                continue
            if state and pred(state):
                return state
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}")

    def _remote(self, *args: str) -> str:
        out = subprocess.run(
            [str(NVIM), "--headless", "--clean", "--server", self.sock, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=3,
        )
        return out.stdout

    def close(self) -> None:
        os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_restores_and_their_undo_never_stop_at_a_press_enter_prompt(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    _git(workspace, "init", "-q")
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    _git(workspace, "add", "-A")
    _git(workspace, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "start")
    fixed = "def add(a, b):\n    return a + b\n"
    fake_llm.script(Reply.tool_call("write_file", {"path": "calc.py", "content": fixed}), Reply.text("Fixed."))
    ui = Tui(nvim, setup={"approval": "allow", "show_messages": True})
    try:
        ui.keys(":edit calc.py<CR>:AgentChat Fix add<CR>")
        ui.wait_for(lambda s: s["turns"] >= 1, "the turn")
        assert (workspace / "calc.py").read_text() == fixed

        def pick(command: str, *numbers: str) -> None:  # each list comes from the server: wait, then answer
            mark = len(ui.out)
            ui.keys(command)
            for n in numbers:
                mark = ui.wait_output(b"Type number", mark, f"the list to pick {n} from")
                ui.keys(f"{n}<CR>")

        pick("<Esc>:AgentCheckpoints<CR>", "1", "3", "1")  # the turn, "restore the files", confirm
        state = ui.wait_for(lambda s: s["restores"] >= 1, "the restore")
        assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
        assert "restored 1 file(s)" in state["chat"] and "Undo the last restore" in state["chat"], state["chat"]
        pick(":AgentCheckpoints<CR>", "1", "1")  # "Undo the last restore", confirm
        ui.wait_for(lambda s: s["restores"] >= 2, "the undo")
        assert (workspace / "calc.py").read_text() == fixed
        pick(":AgentCheckpoints<CR>", "2", "4", "1")  # the turn, "the files and the conversation", confirm
        state = ui.wait_for(lambda s: s["restores"] >= 3, "the restore with the conversation")
        assert "Fix add" not in state["chat"] and "cut the conversation" in state["chat"], state["chat"]
        time.sleep(1)  # whatever is still to come on the screen after the last step
        ui.no_prompt("the end")
    finally:
        ui.close()
