"""The scorecard's bookkeeping: runs that split the tasks between cores add up to one table, and an ablation can
switch several features off in one system (a tool-path feature is measured on the tool path)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.benchmarks.scorecard.systems import AgentServerSystem

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "benchmarks" / "bench_scorecard.py"


def row(task: str, system: str, p1: bool, p2: bool, tokens: int, calls: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    attempt = {"stop": "end_turn", "rounds": 1, "calls_attempted": calls[0], "calls_valid": calls[1],
               "recoveries": {}, "seconds": 10.0, "error": "", "passed": p1}  # fmt: skip
    attempts = [attempt] if p1 else [attempt, {**attempt, "passed": p2}]
    return {"task": task, "kind": "exercise", "system": system, "passed_1": p1, "passed_2": p2,
            "attempts": attempts, "prompt_tokens": tokens, "seconds": 20.0}  # fmt: skip


def run_file(path: Path, rows: list[dict[str, Any]], window: int = 8192) -> Path:
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    path.write_text(json.dumps({"model": "m", "window": window, "tasks": tasks, "rows": rows, "wall_seconds": 5.0}))
    return path


def merge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--merge", *args], capture_output=True, text=True, cwd=ROOT)


def test_two_halves_of_a_run_make_one_table(tmp_path: Path) -> None:
    a = run_file(tmp_path / "a.json", [row("leap", "agent-server", True, True, 100, (2, 1)),
                                       row("leap", "whole file", False, True, 50)])  # fmt: skip
    b = run_file(tmp_path / "b.json", [row("queue", "agent-server", False, False, 300, (2, 2)),
                                       row("queue", "whole file", False, False, 70)])  # fmt: skip
    out = tmp_path / "all.json"
    done = merge(str(a), str(b), "--per-task", "--json", str(out))
    assert done.returncode == 0, done.stderr
    merged = json.loads(out.read_text())
    assert merged["tasks"] == ["leap", "queue"]
    agent, whole = merged["summary"]["agent-server"], merged["summary"]["whole file"]
    assert (agent["tasks"], agent["pass@1"], agent["pass@2"], agent["prompt_tokens"]) == (2, 1, 1, 400)
    assert (whole["pass@1"], whole["pass@2"], whole["prompt_tokens"]) == (0, 1, 120)
    assert agent["validity"] == 5 / 6  # every attempt of both runs: leap's 1 of 2, queue's 2 of 2 twice
    assert "2 tasks, m, window 8192" in done.stdout
    assert "leap                     1 2" in done.stdout and "queue                    . ." in done.stdout


def test_runs_that_do_not_add_up_are_refused(tmp_path: Path) -> None:
    a = run_file(tmp_path / "a.json", [row("leap", "agent-server", True, True, 1)])
    other_window = run_file(tmp_path / "b.json", [row("queue", "agent-server", True, True, 1)], window=4096)
    same_task = run_file(tmp_path / "c.json", [row("leap", "agent-server", False, False, 1)])
    for second, why in ((other_window, "different models or windows"), (same_task, "in two of these runs")):
        done = merge(str(a), str(second))
        assert done.returncode != 0 and why in done.stderr, done.stderr


def test_several_features_off_in_one_system(tmp_path: Path) -> None:
    system = AgentServerSystem("http://127.0.0.1:9", "m", tmp_path / "a.db", 60, ("files_format", "text_tool_calls"))
    settings = system._settings(tmp_path)
    assert system.name == "agent-server -files_format -text_tool_calls"
    assert settings.agent.edit_format == "tools" and settings.agent.recover_text_tool_calls is False
    assert settings.agent.reduced_tools is True  # only what was named is off
