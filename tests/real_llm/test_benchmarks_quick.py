"""The quick modes of the benchmarks that need a real model (so they do not rot): each runs end to end against
llama.cpp with the lane's models and prints its figures. The figures themselves are the benchmarks' output, never
asserted here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.real_llm, pytest.mark.timeout(900)]

QUICK = {
    "bench_ttft.py": ["fixed prompt", "turn 2"],
    "bench_completion.py": ["exact", "p50"],
    "bench_prompt_cache.py": ["target"],
}


def lane_env(real_llm_out: str) -> dict[str, str]:
    """The models scripts/real_llm.sh fetched for this lane (the tests' own cache dirs are temporary)."""
    values = dict(line.split("=", 1) for line in real_llm_out.splitlines() if "=" in line)
    qwen = values["QWEN_MODEL"]
    return {
        **os.environ,
        "AGENT_TEST_GGUF": qwen,
        "AGENT_COMPLETION_GGUF": qwen,
        "AGENT_SERVER_CACHE": str(Path(values["LLAMA_MODEL"]).parent.parent),
    }


@pytest.mark.parametrize("script", sorted(QUICK))
def test_real_model_benchmark_quick_mode_runs(script: str, real_llm_out: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "benchmarks" / script), "--quick"],
        cwd=ROOT,
        env=lane_env(real_llm_out),
        capture_output=True,
        text=True,
        timeout=850,
    )
    assert done.returncode == 0, f"{script} --quick failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    for label in QUICK[script]:
        assert label in done.stdout, f"{script} --quick printed no '{label}':\n{done.stdout[-3000:]}"
