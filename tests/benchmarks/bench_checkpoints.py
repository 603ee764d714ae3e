"""Checkpoint cost on a 10,000-file git repository: time per checkpoint and disk added per checkpoint.

Run: python tests/benchmarks/bench_checkpoints.py [--files N] [--reps N]
Baseline, measured in the same run on the same repository: `git status --porcelain` (git's own scan of the work
tree, the least any snapshot of it can cost). Reported: the first checkpoint (private index seeded from the
user's index), then a turn's usual pair (before + after) with 3 files changed between them, as median and p95 in ms
and as a ratio to the baseline; disk added per checkpoint (git object store growth + SQLite rows).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from agent_server.checkpoints import CheckpointService
from agent_server.checkpoints.git_snapshots import GitSnapshots, private_git_dir
from agent_server.store import Store

ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
ENV["GIT_COMMITTER_EMAIL"] = "b@b"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=ENV)


def make_repo(root: Path, files: int) -> None:
    root.mkdir()
    git(root, "init", "-q")
    for i in range(files):
        d = root / f"pkg{i // 100:03d}"
        d.mkdir(exist_ok=True)
        (d / f"mod{i:05d}.py").write_text(f"def f{i}(x):\n    return x + {i}\n" * 20)
    (root / ".gitignore").write_text("build/\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "initial")


def timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return (time.perf_counter() - start) * 1000


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks that the benchmark runs (CI)")
    args = parser.parse_args()
    if args.quick:
        args.files, args.reps = 300, 1
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        make_repo(repo, args.files)
        snaps = GitSnapshots(repo, private_git_dir(Path(tmp), repo))
        store = Store(Path(tmp) / "agent.db")
        store.create_session(str(repo), session_id="bench")
        service = CheckpointService(store)

        def status() -> None:
            subprocess.run(["git", "status", "--porcelain"], cwd=repo, check=True, capture_output=True, env=ENV)

        first = timed(lambda: snaps.snapshot("bench/first", "first"))
        baseline: list[float] = []
        pair: list[float] = []
        disk: list[int] = []
        for rep in range(args.reps):
            baseline.append(timed(status))
            objects = snaps.object_bytes()
            db_before = (Path(tmp) / "agent.db").stat().st_size

            async def turn(rep: int = rep) -> None:
                await service.before_change("bench", repo, rep + 1, f"turn {rep}", [])
                for k in range(3):
                    f = repo / f"pkg{k:03d}" / f"mod{k * 100:05d}.py"
                    f.write_text(f.read_text() + f"# turn {rep}\n")
                await service.after_turn("bench", rep + 1)

            pair.append(timed(lambda: asyncio.run(turn())))
            disk.append(snaps.object_bytes() - objects + (Path(tmp) / "agent.db").stat().st_size - db_before)
        base = statistics.median(baseline)
        print(f"repository: {args.files} files; {args.reps} turns, 3 files changed per turn")
        print(f"baseline  git status --porcelain: median {base:.0f} ms, p95 {pct(baseline, 0.95):.0f} ms")
        print(f"first checkpoint (cold private index): {first:.0f} ms ({first / base:.2f}x baseline)")
        print(
            f"per turn (checkpoint before + snapshot after): median {statistics.median(pair):.0f} ms,"
            f" p95 {pct(pair, 0.95):.0f} ms ({statistics.median(pair) / base:.2f}x baseline);"
            f" one checkpoint ~ {statistics.median(pair) / 2:.0f} ms"
        )
        print(f"disk added per turn: median {statistics.median(disk) / 1024:.1f} KiB (git objects + SQLite)")
        store.close()


if __name__ == "__main__":
    main()
