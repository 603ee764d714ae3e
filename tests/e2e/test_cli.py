"""The command line as a user runs it: version, doctor, config errors, permissions."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from agent_server import __version__
from agent_server.store import Store
from agent_server.tools.permissions import Decision
from agent_server.turn.edit_format import model_key
from tests import server_zygote
from tests.fakes.fake_llm import FakeLLMServer, FakeModel


def run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return server_zygote.run(
        [*args],
        timeout=60, env={**os.environ, "NO_COLOR": "1", **(env or {})}, cwd=cwd,
    )  # fmt: skip


def test_version() -> None:
    proc = run("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"agent-server {__version__}"


def test_doctor_lists_models_and_their_abilities(fake_llm: FakeLLMServer, workspace: Path) -> None:
    fake_llm.models = [
        FakeModel("qwen3:8b", context_length=40960, capabilities=["completion", "tools", "thinking"]),
        FakeModel("gemma3:4b", context_length=8192, capabilities=["completion"]),
    ]
    proc = run(
        "doctor",
        "--json",
        "--provider",
        "ollama",
        "--base-url",
        fake_llm.url,
        "--model",
        "gemma3:4b",
        "-w",
        str(workspace),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    models = {m["name"]: m for m in report["models"]}
    assert models["qwen3:8b"] == {
        "name": "qwen3:8b",
        "tools": "native",
        "thinking": True,
        "embeddings": False,
        "context_length": 40960,
    }
    assert models["gemma3:4b"]["tools"] == "prompt-based"
    assert any("prompt" in n for n in report["notes"])


def test_doctor_fails_with_a_fix_when_nothing_answers(workspace: Path) -> None:
    proc = run("doctor", "--provider", "ollama", "--base-url", "http://127.0.0.1:9", "-w", str(workspace))
    assert proc.returncode == 1
    assert "127.0.0.1:9" in proc.stdout and "Fix:" in proc.stdout


def test_doctor_names_a_missing_model(fake_llm: FakeLLMServer, workspace: Path) -> None:
    proc = run(
        "doctor", "--provider", "ollama", "--base-url", fake_llm.url, "--model", "llama9:70b", "-w", str(workspace)
    )
    assert proc.returncode == 1 and "llama9:70b" in proc.stdout and "ollama pull llama9:70b" in proc.stdout


def test_bad_setting_is_one_clear_line(workspace: Path) -> None:
    # The bad key is named and skipped; the chat goes on (and here stops only because no LLM server runs).
    proc = run("chat", "-w", str(workspace), "hi", env={"AGENT_SERVER_AGENT__MAX_ROUNDS": "lots"})
    first = proc.stderr.strip().splitlines()[0]
    assert first.startswith("agent-server: environment (AGENT_SERVER_AGENT__MAX_ROUNDS): agent.max_rounds:")
    assert "'lots'" in first and "(ignored)" in first
    assert "cannot reach the LLM server" in proc.stderr and proc.returncode == 1
    assert "Traceback" not in proc.stderr


def test_permissions_list_and_revoke(tmp_path: Path, workspace: Path) -> None:
    db = tmp_path / "p.db"
    with Store(db) as store:
        store.add(
            Decision(id="d1", workspace=str(workspace.resolve()), tool="run_command", pattern="pytest *", allow=True)
        )
    env = {"AGENT_SERVER_STORE__PATH": str(db)}
    listed = run("permissions", "list", "--json", "-w", str(workspace), env=env)
    assert listed.returncode == 0, listed.stderr
    assert [(d["id"], d["tool"], d["pattern"], d["allow"]) for d in json.loads(listed.stdout)] == [
        ("d1", "run_command", "pytest *", True)
    ]
    assert run("permissions", "revoke", "d1", env=env).returncode == 0
    assert json.loads(run("permissions", "list", "--json", "-w", str(workspace), env=env).stdout) == []
    missing = run("permissions", "revoke", "d1", env=env)
    assert missing.returncode == 1 and "d1" in missing.stderr


def test_doctor_reports_the_built_in_model_without_downloading_it(workspace: Path, tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = run("doctor", "--json", "--provider", "embedded", "-w", str(workspace), env=env)
    assert proc.returncode == 1  # not usable yet: the model is not downloaded
    report = json.loads(proc.stdout)
    assert report["embedded"]["model"] == "qwen2.5-coder-0.5b-instruct"
    assert report["embedded"]["file"] is None and report["embedded"]["size"] == 491_400_064
    assert "agent-server chat --provider embedded" in report["problems"][0]
    assert not (tmp_path / "cache" / "agent-server" / "models").exists()  # a diagnosis downloads nothing


def test_doctor_with_no_server_offers_the_built_in_model(workspace: Path, tmp_path: Path) -> None:
    # No Ollama/LM Studio here (their default ports answer nothing in the test environment).
    proc = run("doctor", "--json", "-w", str(workspace), env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    report = json.loads(proc.stdout)
    if report["base_url"]:
        pytest.skip("a local LLM server answers on this machine: there is nothing to offer instead")
    assert proc.returncode == 1
    assert "built-in local model" in report["problems"][0]


def test_text_with_square_brackets_reaches_the_terminal_whole(fake_llm: FakeLLMServer, workspace: Path) -> None:
    # The terminal's printer reads "[bold]" or "[local]" as a style tag and drops it: names that come from a server
    # and the install command a fix names (pip install 'agent-server[local]') must be printed as they are.
    fake_llm.models = [FakeModel("qwen[bold]:1b", capabilities=["completion", "tools"])]
    proc = run(
        "doctor", "--provider", "ollama", "--base-url", fake_llm.url, "--model", "qwen[bold]:1b", "-w", str(workspace)
    )
    assert "qwen[bold]:1b" in proc.stdout and "→ qwen[bold]:1b" in proc.stdout, proc.stdout


def test_doctor_says_how_the_model_will_edit_and_why(fake_llm: FakeLLMServer, workspace: Path, tmp_path: Path) -> None:
    fake_llm.models = [FakeModel("gemma3:1b", context_length=8192, capabilities=["completion", "tools"])]
    db = tmp_path / "agent.db"
    args = ("doctor", "--json", "--provider", "ollama", "--base-url", fake_llm.url, "--model", "gemma3:1b",
            "-w", str(workspace))  # fmt: skip

    def notes(**env: str) -> list[str]:
        proc = run(*args, env={"AGENT_SERVER_STORE__PATH": str(db), **env})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return [n for n in json.loads(proc.stdout)["notes"] if "edits files" in n]

    assert notes() == ["gemma3:1b edits files with tool calls (nothing measured for this model)."]
    with Store(db) as store:  # what `bench_scorecard.py --remember` writes
        store.put_measured_format(model_key("gemma3:1b"), "files", "scorecard 2026-11-27: files 5/20, tools 1/20")
    assert notes() == [
        "gemma3:1b edits files with whole files / search-replace blocks in its answer "
        "(measured on this machine: scorecard 2026-11-27: files 5/20, tools 1/20)."
    ]
    assert notes(AGENT_SERVER_AGENT__EDIT_FORMAT="tools") == [
        "gemma3:1b edits files with tool calls (agent.edit_format = tools)."
    ]
