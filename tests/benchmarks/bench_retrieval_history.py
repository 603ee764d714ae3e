"""A second check on the ranking, from the DEV repositories' own history: tasks nobody tuned on.

Each task is a commit of psf/requests, pallets/flask or pytest-dev/pytest that changed exactly one non-test `.py`
file: its commit message is the request, the tree at its parent the workspace, that file the answer. Messages that
name the file, and chores (typos, lint, releases, reverts), are left out; a fixed seed picks 14 per repository.
Commit messages are shorter and more technical than issues, so this complements the SWE-bench dev split rather than
replacing it; it guards against ranking changes that only fit those 26 tasks. Reports file-level Acc@1/3/5/10 and
MRR of `rank_files`, of the chunk list at `agent-server search`'s default limit (10), and of plain FTS5 BM25 over
the same chunks in the same run.

Run: python tests/benchmarks/bench_retrieval_history.py [--repos-dir $AGENT_BENCH_REPOS] [--per-repo 14]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from agent_server.index.entities import analyze_request
from agent_server.index.search import rank, rank_files
from agent_server.index.workspace_index import WorkspaceIndex

sys.path.insert(0, str(Path(__file__).parent))
from bench_retrieval import bm25_baseline, find_git_dir, materialize

DEV_REPOS = ("psf/requests", "pallets/flask", "pytest-dev/pytest")
KS = (1, 3, 5, 10)
_TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_|conftest")
_CHORE = re.compile(r"(?i)\b(typo|changelog|release|version bump|merge|revert|flake8|lint|format|black|pre-commit|"
                    r"mypy|typing)\b")  # fmt: skip


@dataclass
class Task:
    repo: str
    commit: str
    parent: str
    gold: str
    message: str


def history_tasks(git_dir: Path, repo: str, per_repo: int, seed: int = 19) -> list[Task]:
    log = subprocess.run(
        ["git", f"--git-dir={git_dir}", "log", "--no-merges", "--since=2014-01-01", "--format=%x00%H%x01%P%x01%B%x02",
         "--name-only"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    found: list[Task] = []
    for record in log.split("\x00")[1:]:
        commit, parents, rest = record.split("\x01", 2)
        message, _, listing = rest.partition("\x02")
        message = message.strip()
        names = [line.strip() for line in listing.splitlines() if line.strip()]
        source = [
            n for n in names
            if n.endswith(".py") and not _TEST_PATH.search(n) and "/packages/" not in n
            and not n.startswith(("doc", "bench", "scripts", "examples"))
        ]  # fmt: skip
        if len(source) != 1 or len(parents.split()) != 1 or len(message.split()) < 12 or _CHORE.search(message):
            continue
        if Path(source[0]).stem in message:  # the message names the file: too easy, and not what users write
            continue
        found.append(Task(repo, commit, parents.split()[0], source[0], message))
    random.Random(seed).shuffle(found)
    return found[:per_repo]


def scores(ranks: list[int]) -> str:
    n = max(1, len(ranks))
    accs = " ".join(f"{100 * sum(r <= k for r in ranks) / n:6.1f}" for k in KS)
    return f"{accs} {sum(1 / r for r in ranks) / n:6.3f}"


def rank_of(gold: str, paths: list[str]) -> int:
    return paths.index(gold) + 1 if gold in paths else 10**6


async def run(args: argparse.Namespace) -> None:
    scratch = Path(args.scratch)
    rows: dict[str, list[int]] = {"files": [], "chunks": [], "bm25": []}
    repos = ["self/agent-server"] if args.quick else DEV_REPOS
    for repo in repos:
        git_dir = find_git_dir(Path(args.repos_dir or "."), repo)
        for t in history_tasks(git_dir, repo, 2 if args.quick else args.per_repo):
            ws = await asyncio.to_thread(materialize, git_dir, t.parent, scratch / t.commit[:12])
            with tempfile.TemporaryDirectory() as tmp:
                index = WorkspaceIndex(ws, Path(tmp) / "index.db")
                index.weights = replace(index.weights, **{k: float(v) for k, v in (kv.split("=") for kv in args.set)})
                await index.build()
                ctx = await index._context()
                q = analyze_request(t.message)
                files = [f.path for f in rank_files(index.db, ctx, q, 100, None, index.weights)]
                chunks = list(dict.fromkeys(h.path for h in rank(index.db, ctx, q, 10, None, index.weights)))
                rows["files"].append(rank_of(t.gold, files))
                rows["chunks"].append(rank_of(t.gold, chunks))
                rows["bm25"].append(rank_of(t.gold, bm25_baseline(index, t.message)))
                index.close()
            print(f"{repo:<18} {t.commit[:10]} {t.gold:<40} rank {rows['files'][-1]}", file=sys.stderr)
    print(f"\nDev repositories' history: {len(rows['files'])} single-file commits, message as the request")
    print(f"{'ranking':<22} {'Acc@1':>6} {'Acc@3':>6} {'Acc@5':>6} {'Acc@10':>6} {'MRR':>6}")
    print(f"{'hybrid, files':<22} {scores(rows['files'])}")
    print(f"{'hybrid, chunks (10)':<22} {scores(rows['chunks'])}")
    print(f"{'plain BM25':<22} {scores(rows['bm25'])}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--repos-dir", default=os.environ.get("AGENT_BENCH_REPOS"), help="bare git mirrors (env AGENT_BENCH_REPOS)"
    )
    ap.add_argument("--quick", action="store_true", help="this repository's own history, 2 tasks: checks that it runs")
    ap.add_argument("--scratch", default=str(Path(tempfile.gettempdir()) / "bench-retrieval-history"))
    ap.add_argument("--per-repo", type=int, default=14)
    ap.add_argument("--set", action="append", default=[], metavar="WEIGHT=VALUE", help="change a search.Weights field")
    args = ap.parse_args()
    if not args.quick and not args.repos_dir:
        ap.error("--repos-dir (or AGENT_BENCH_REPOS) is required, except with --quick")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
