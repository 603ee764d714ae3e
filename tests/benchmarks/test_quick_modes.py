"""Benchmarks that do not rot: each one's --quick mode runs here, end to end, in every CI run.

These assert that the benchmark ran and printed its figures, never the figures themselves (timings on 2 shared
cores say nothing in a test). A benchmark that a change breaks (a scripted answer the repetition guard now cuts, a
moved import, a data path that only existed on one machine) fails here instead of at the next measurement.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# benchmark -> lines its report must contain (the figures' labels)
QUICK = {
    "bench_relay.py": ["b/a = ", "burst (no pause)", "10 ms apart"],
    "bench_provider.py": ["ollama /api/chat NDJSON", "openai /v1 SSE", "ratio"],
    "bench_context.py": ["harness per round", "ratio harness / baseline"],
    "bench_startup.py": ["agent-server serve", "targets: initialize", "exit (ms)"],
    "bench_acp_startup.py": ["ratio acp / serve", "session/new answered"],
    "bench_checkpoints.py": ["first checkpoint", "per turn"],
    "bench_cli_search.py": ["agent-server search", "ratio to python -c pass"],
    "bench_index_speed.py": ["read+hash baseline", "cold index", "ratio index/baseline"],
    "bench_retrieval.py": ["Acc@5 ratio hybrid/bm25", "hybrid", "ref-bm25"],
    "bench_retrieval_history.py": ["hybrid, files", "plain BM25"],
    "bench_edit_matching.py": ["baseline (exact only)", "forgiving matcher", "wrong place"],
    "bench_editor_cold_start.py": ["bare_start_s_median", "cold_start_to_usable_chat_s_median"],
}


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("script", sorted(QUICK))
def test_benchmark_quick_mode_runs_and_reports(script: str, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "benchmarks" / script), "--quick"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert done.returncode == 0, f"{script} --quick failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    for label in QUICK[script]:
        assert label in done.stdout, f"{script} --quick printed no '{label}':\n{done.stdout[-2000:]}"


def test_every_benchmark_has_a_quick_mode() -> None:
    """A new benchmark joins the list above (or the real-model lane's), so CI runs it too."""
    # these need a real model (llama.cpp with Qwen2.5-Coder-0.5B or SmolLM2): their quick modes run in the real_llm
    # lane (tests/real_llm/test_benchmarks_quick.py)
    real_model = {
        "bench_prompt_cache.py",
        "bench_retrieval_embeddings.py",
        "bench_completion.py",
        "bench_scorecard.py",
        "bench_ttft.py",
    }
    scripts = {p.name for p in (ROOT / "tests" / "benchmarks").glob("bench_*.py")}
    missing = scripts - set(QUICK) - real_model
    assert not missing, f"benchmarks without a quick run in CI: {sorted(missing)}"
    for name in scripts:
        assert "--quick" in (ROOT / "tests" / "benchmarks" / name).read_text(), f"{name} has no --quick mode"


def test_every_vscode_benchmark_runs_its_quick_mode_in_the_vscode_check() -> None:
    """The VS Code benchmarks (editors/vscode/test/e2e/*.bench.mjs) need code-server and the packaged .vsix, which
    the VS Code check (editors/vscode/scripts/e2e.sh) installs and builds: it runs each one's --quick mode."""
    e2e = (ROOT / "editors" / "vscode" / "scripts" / "e2e.sh").read_text()
    benches = sorted((ROOT / "editors" / "vscode" / "test" / "e2e").glob("*.bench.mjs"))
    assert benches, "the VS Code cold-start benchmark is gone"
    for bench in benches:
        assert "--quick" in bench.read_text(), f"{bench.name} has no --quick mode"
        assert f"test/e2e/{bench.name} --quick" in e2e, f"e2e.sh does not run {bench.name} --quick"
