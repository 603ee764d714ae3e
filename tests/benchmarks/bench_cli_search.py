"""Cold `agent-server search` of an indexed workspace vs `python -c pass` in the same run (process start included).

Run: python tests/benchmarks/bench_cli_search.py [--workspace DIR] [--runs 20]
Without --workspace it indexes a copy of `agent_server/` in a temporary directory first. Reports medians and the
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


def timed(cmd: list[str], runs: int) -> list[float]:
    out: list[float] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--workspace", type=Path, default=None)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--query", default="rank files by their best chunks")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = args.workspace
        if ws is None:
            ws = Path(tmp) / "ws"
            shutil.copytree(Path(__file__).resolve().parents[2] / "agent_server", ws / "agent_server")
        db = Path(tmp) / "index.db"
        subprocess.run([str(AGENT_SERVER), "index", str(ws), "--db", str(db)], check=True, capture_output=True)
        search = ["search", "--workspace", str(ws), "--db", str(db), args.query]
        full = [sys.executable, "-c", "import sys; from agent_server.cli import main; sys.exit(main(sys.argv[1:]))"]
        rows = {
            "python -c pass": timed([sys.executable, "-c", "pass"], args.runs),
            "agent-server search": timed([str(AGENT_SERVER), *search], args.runs),
            "agent-server search --files": timed([str(AGENT_SERVER), *search, "--files"], args.runs),
            "full CLI search (agent_server.cli)": timed([*full, *search], max(3, args.runs // 4)),
        }
    base = statistics.median(rows["python -c pass"])
    for name, ms in rows.items():
        med = statistics.median(ms)
        print(f"{name:<36} median {med:7.1f} ms  min {min(ms):7.1f} ms  ratio to python -c pass {med / base:5.2f}")


if __name__ == "__main__":
    main()
