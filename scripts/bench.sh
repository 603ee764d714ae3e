#!/usr/bin/env bash
# Every benchmark, one after the other; each prints ratios against a baseline measured in the same run.
#   bash scripts/bench.sh           full sizes
#   bash scripts/bench.sh --quick   tiny sizes: checks that every benchmark still runs (CI runs these through
#                                   tests/benchmarks/test_quick_modes.py)
# Data comes from arguments or the environment, never from a path that exists on one machine only:
#   AGENT_BENCH_REPOS     bare git mirrors of psf/requests, pallets/flask, pytest-dev/pytest (retrieval benchmarks;
#                         without it they run their --quick tasks on this repository instead)
#   AGENT_BENCH_BIG_REPO  a bare git dir of a large repository such as sympy (index speed, query latency)
#   AGENT_BENCH_TASKS     the SWE-bench Lite localization tasks (default: ../shared/bench beside the checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
. .venv/bin/activate
Q=()
[ "${1:-}" = "--quick" ] && Q=(--quick)
REPOS="${AGENT_BENCH_REPOS:-}"
BIG="${AGENT_BENCH_BIG_REPO:-}"
echo "== stream relay (issue 2)";     python tests/benchmarks/bench_relay.py "${Q[@]}"
echo "== provider parsing (issue 3)"; python tests/benchmarks/bench_provider.py "${Q[@]}"
echo "== per-round context work (issue 5)"; python tests/benchmarks/bench_context.py "${Q[@]}"
echo "== cold start of serve (issue 15)"; python tests/benchmarks/bench_startup.py "${Q[@]}"
echo "== cold start of acp against serve (issue 16)"; python tests/benchmarks/bench_acp_startup.py "${Q[@]}"
echo "== checkpoints on a 10,000-file repository (issue 18)"; python tests/benchmarks/bench_checkpoints.py "${Q[@]}"
echo "== cold agent-server search vs python -c pass (issue 19)"; python tests/benchmarks/bench_cli_search.py "${Q[@]}"
echo "== cold index throughput vs read+hash (issue 19)"
python tests/benchmarks/bench_index_speed.py "${Q[@]}" ${BIG:+--big-repo "$BIG"}
if [ -n "$REPOS" ] && [ ${#Q[@]} -eq 0 ]; then
  echo "== retrieval on SWE-bench Lite dev, file level (issues 7, 19)"
  python tests/benchmarks/bench_retrieval.py --repos-dir "$REPOS" ${BIG:+--big-repo "$BIG"}
  echo "== retrieval on the dev repositories' own history (issue 19)"
  python tests/benchmarks/bench_retrieval_history.py --repos-dir "$REPOS"
else
  echo "== retrieval, quick tasks on this repository (set AGENT_BENCH_REPOS for the dev split)"
  python tests/benchmarks/bench_retrieval.py --quick
  python tests/benchmarks/bench_retrieval_history.py --quick
fi
echo "== Neovim: cold start to a usable chat vs the bare editor (issue 29)"
python tests/benchmarks/bench_editor_cold_start.py "${Q[@]}"
echo "== forgiving edit matching on recorded and synthetic near misses (issue 28)"
if [ ${#Q[@]} -eq 0 ]; then python tests/benchmarks/bench_edit_matching.py --synthetic 600; else python tests/benchmarks/bench_edit_matching.py --quick; fi
echo "== prompt-cache reuse over a multi-round turn, real llama.cpp server (issue 14)"
python tests/benchmarks/bench_prompt_cache.py "${Q[@]}"
if [ ${#Q[@]} -gt 0 ] && python -c "import xllamacpp" 2>/dev/null; then
  echo "== inline completion, quick: spans from this repository's own history (issue 32)"
  python tests/benchmarks/bench_completion.py --quick
elif [ -n "$REPOS" ] && [ -d "$REPOS/pallets+click/repo" ] && python -c "import xllamacpp" 2>/dev/null; then
  echo "== inline completion on pallets/click commits, Qwen2.5-Coder-0.5B (issue 32)"
  python tests/benchmarks/bench_completion.py --repo-git "$REPOS/pallets+click/repo" "${Q[@]}"
else
  echo "== inline completion: skipped (needs AGENT_BENCH_REPOS with a pallets/click mirror, and xllamacpp)"
fi
echo "== time to first token: lean prompt, warm turn, resumed session with slot restore (issue 27)"
if python -c "import xllamacpp" 2>/dev/null; then
  python tests/benchmarks/bench_ttft.py "${Q[@]}"
else
  echo "skipped: xllamacpp is not installed (pip install -e '.[local]', see docs/providers.md)"
fi
echo "== small-model scorecard: agent-server vs its baselines and the peers (aider, mini-swe-agent, agent-mini, OpenCode), Qwen2.5-Coder-0.5B"
QWEN="${AGENT_BENCH_GGUF:-$(bash scripts/real_llm.sh --check 2>/dev/null | sed -n 's/^QWEN_MODEL=//p')}"
if [ -n "$QWEN" ] && python -c "import xllamacpp" 2>/dev/null; then
  if [ ${#Q[@]} -gt 0 ]; then
    python tests/benchmarks/bench_scorecard.py --quick --gguf "$QWEN" --timeout 120  # every lane once: does it run?
  else  # the 69 small tasks (exercise, workspace), one model thread: about 2 hours on 2 cores (docs/scorecard.md)
    python tests/benchmarks/bench_scorecard.py --gguf "$QWEN" --window 8192 --systems agent,plain,wholefile \
      --kinds exercise,workspace --timeout 120 --per-task
  fi
else
  echo "skipped: needs xllamacpp and the Qwen2.5-Coder-0.5B GGUF (bash scripts/real_llm.sh fetches both)"
fi
