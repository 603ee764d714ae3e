#!/usr/bin/env bash
# Every benchmark, one after the other; each prints ratios against a baseline measured in the same run.
# The retrieval benchmark needs bare git mirrors of psf/requests, pallets/flask and pytest-dev/pytest
# (and optionally sympy/sympy) under REPOS_DIR (default /work/.mirror); it is skipped with a note otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
. .venv/bin/activate
echo "== stream relay (issue 2)";     python tests/benchmarks/bench_relay.py
echo "== provider parsing (issue 3)"; python tests/benchmarks/bench_provider.py
echo "== per-round context work (issue 5)"; python tests/benchmarks/bench_context.py
echo "== cold start of serve (issue 15)"; python tests/benchmarks/bench_startup.py
echo "== cold start of acp against serve (issue 16)"; python tests/benchmarks/bench_acp_startup.py
echo "== checkpoints on a 10,000-file repository (issue 18)"; python tests/benchmarks/bench_checkpoints.py
echo "== cold agent-server search vs python -c pass (issue 19)"; python tests/benchmarks/bench_cli_search.py
REPOS_DIR="${REPOS_DIR:-/work/.mirror}"
if ls -d "$REPOS_DIR"/*requests* >/dev/null 2>&1; then
  echo "== retrieval on SWE-bench Lite dev, file level (issues 7, 19)"
  big=$(ls -d "$REPOS_DIR"/sympy*/repo 2>/dev/null | head -1 || true)
  python tests/benchmarks/bench_retrieval.py --repos-dir "$REPOS_DIR" ${big:+--big-repo "$big"}
  if [ -n "$big" ]; then
    echo "== cold index throughput on $big vs read+hash (issue 19)"
    python tests/benchmarks/bench_index_speed.py --big-repo "$big"
  fi
  echo "== retrieval on the dev repositories' own history (issue 19)"
  python tests/benchmarks/bench_retrieval_history.py --repos-dir "$REPOS_DIR"
else
  echo "== retrieval: skipped, no repository mirrors in $REPOS_DIR (see tests/benchmarks/bench_retrieval.py --help)"
fi
echo "== prompt-cache reuse over a 10-round turn, real llama-server (issue 14)"
python tests/benchmarks/bench_prompt_cache.py
echo "== time to first token: lean prompt, warm turn, resumed session with slot restore (issue 27)"
if python -c "import xllamacpp" 2>/dev/null; then
  python tests/benchmarks/bench_ttft.py ${BENCH_QUICK:+--quick}
else
  echo "skipped: xllamacpp is not installed (pip install xllamacpp==2026.10.11549, see docs/providers.md)"
fi
