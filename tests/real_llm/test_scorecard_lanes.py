"""The scorecard's `--quick` mode against the real Qwen2.5-Coder-0.5B: every lane (agent-server in-process and
headless, aider, mini-swe-agent with both its configs, agent-mini, OpenCode, the whole-file baseline and the plain loop) still runs
headless against the same llama.cpp server and is scored.

It asserts that each lane ran (installed on first use into the benchmark's cache, answered within the time limit or
was stopped at it, its tests were run) and that the results say with what (versions, command lines, date, machine)
and draw their chart; never a pass rate (docs/scorecard.md has those, from the benchmark's own runs).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.real_llm.test_benchmarks_quick import lane_env

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.real_llm, pytest.mark.timeout(3600)]
LANES = ["agent-server", "agent-server cli", "aider", "mini-swe-agent", "mini-swe-agent text", "agent-mini", "opencode",
         "whole file", "plain loop"]  # fmt: skip


def test_every_lane_runs_headless_against_the_model(real_llm_out: str, tmp_path: Path) -> None:
    out = tmp_path / "quick.json"
    done = subprocess.run(
        # 30 s an attempt: this checks that each lane installs, starts headless against the server and is scored
        # (a lane stopped at its limit ran; one that cannot start is an error), not how well; eight lanes on a
        # 2-core CI machine must stay within minutes (90 s cost CI up to 12 minutes here). At 45 s aider,
        # mini-swe-agent and OpenCode ran to the limit (the eight took 267 s of CI); at 30 s each lane still had the
        # server evaluate its prompt (1,150 tokens aider, 2,048 OpenCode) and the eight took 227 s (28 Nov 2026).
        [
            sys.executable,
            "tests/benchmarks/bench_scorecard.py",
            "--quick",
            "--model",
            "0.5b",
            "--timeout",
            "30",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        env=lane_env(real_llm_out),
        capture_output=True,
        text=True,
        timeout=3500,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["model"] == "qwen2.5-coder-0.5b-instruct"
    rows = {r["system"]: r for r in result["rows"]}
    assert sorted(rows) == sorted(LANES), done.stderr[-3000:]
    for name, row in rows.items():
        first = row["attempts"][0]
        assert first["stop"] != "error", f"{name} did not run: {first['error']}\n{done.stdout[-2000:]}"
    for name in LANES:
        lane = result["systems"][name]
        assert lane["version"] and not lane.get("unavailable"), lane
        assert lane["command"], lane
    assert result["run"]["date"] and result["run"]["machine"]["cores"]
    assert result["run"]["model_file"].endswith("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
    assert sum(s["prompt_tokens"] for s in result["summary"].values()) > 0  # the server's counters were read
    chart = out.with_suffix(".svg").read_text()
    assert all(name in chart for name in LANES)
