"""Cold `agent-server search` of an indexed workspace vs `python -c pass` in the same run (process start included).

Run: python tests/benchmarks/bench_cli_search.py [--workspace DIR] [--db FILE] [--runs 20]
Without --workspace it indexes a copy of `agent_server/` in a temporary directory first (with --db an existing
index of the workspace is brought up to date instead of built from scratch). Reports medians and the
ratio to a bare interpreter start, plus the same search through the full CLI module (`agent_server.cli`) for
comparison with the pre-launcher path.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGENT_SERVER = Path(sys.executable).with_name("agent-server")


def timed(cmds: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    """Milliseconds per run of each command, round-robin so load from elsewhere hits every command alike."""
    out: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            out[name].append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--workspace", type=Path, default=None)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--query", default="rank files by their best chunks")
    ap.add_argument("--db", type=Path, default=None, help="reuse this index database (built first if missing)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes: checks that the benchmark runs (CI)")
    args = ap.parse_args()
    if args.quick:
        args.runs = 2
    with tempfile.TemporaryDirectory() as tmp:
        ws = args.workspace
        if ws is None:
            ws = Path(tmp) / "ws"
            shutil.copytree(Path(__file__).resolve().parents[2] / "agent_server", ws / "agent_server")
        db = args.db or Path(tmp) / "index.db"
        subprocess.run([str(AGENT_SERVER), "index", str(ws), "--db", str(db)], check=True, capture_output=True)
        # One untimed search: a fresh index saves its symbol graph on the first search, like a user's first one.
        subprocess.run([str(AGENT_SERVER), "search", "--workspace", str(ws), "--db", str(db), args.query],
                       check=True, capture_output=True)  # fmt: skip
        search = ["search", "--workspace", str(ws), "--db", str(db), args.query]
        full = [sys.executable, "-c", "import sys; from agent_server.cli import main; sys.exit(main(sys.argv[1:]))"]
        cmds = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "agent-server search": [str(AGENT_SERVER), *search],
            "agent-server search --files": [str(AGENT_SERVER), *search, "--files"],
        }
        rows = timed(cmds, args.runs) | timed({"full CLI search (agent_server.cli)": [*full, *search]}, 3)
    base = statistics.median(rows["python -c pass"])
    for name, ms in rows.items():
        med = statistics.median(ms)
        print(f"{name:<36} median {med:7.1f} ms  min {min(ms):7.1f} ms  ratio to python -c pass {med / base:5.2f}")


if __name__ == "__main__":
    main()
