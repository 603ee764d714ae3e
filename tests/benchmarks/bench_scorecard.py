"""Small-model scorecard: does the agent finish real coding tasks with a real model on a CPU?

Each task (tests/benchmarks/scorecard/: Exercism exercises and multi-file workspace tasks) is copied into a
throwaway folder, one system works on it, the task's tests run; on a failure the system sees the test output once
and tries again (pass@1 / pass@2, as Aider's benchmark). Per task and in total: pass@1/@2, rounds, prompt tokens
the server evaluated (its /metrics counter, so cached prefixes do not count), wall time, tool-call validity (calls
that parsed and named a real tool ÷ calls attempted, call-shaped text included), recoveries used, stop reasons.

    python tests/benchmarks/bench_scorecard.py --base-url http://127.0.0.1:8080 [--systems agent,plain,wholefile]
        [--tasks leap,queue] [--limit N] [--kinds exercise,workspace] [--ablation] [--json out.json]
    python tests/benchmarks/bench_scorecard.py --gguf model.gguf --window 4096   # starts llama.cpp itself
    python tests/benchmarks/bench_scorecard.py --quick --gguf model.gguf         # 2 tasks, every system (CI)
    python tests/benchmarks/bench_scorecard.py --merge a.json b.json --per-task  # runs that split the tasks
    python tests/benchmarks/bench_scorecard.py --base-url URL --model M --remember  # M edits the way that won

The model server must be a llama.cpp server (`--metrics` on, which `--gguf` does) for the token counts; any
OpenAI-compatible server works for the rest.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.scorecard.formats import remember  # noqa: E402
from tests.benchmarks.scorecard.model_server import ModelServer, start_model_server  # noqa: E402
from tests.benchmarks.scorecard.systems import (  # noqa: E402
    EXTRAS,
    FEATURES,
    AgentServerSystem,
    Attempt,
    PlainLoopSystem,
    System,
    WholeFileSystem,
)
from tests.benchmarks.scorecard.tasks import SMOKE, Task, select  # noqa: E402

PROMPT_COUNTER = re.compile(r"^llamacpp:prompt_tokens_total\s+([0-9.e+]+)", re.M)


@dataclass
class Result:
    task: str
    kind: str
    system: str
    passed_1: bool = False
    passed_2: bool = False
    attempts: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    seconds: float = 0.0


async def prompt_tokens(http: httpx.AsyncClient, base_url: str) -> int:
    try:
        response = await http.get(base_url.rstrip("/") + "/metrics")
        match = PROMPT_COUNTER.search(response.text)
        return int(float(match.group(1))) if match else 0
    except httpx.HTTPError:
        return 0


def run_tests(task: Task, ws: Path) -> tuple[bool, str]:
    # As Aider's benchmark: the task's own tests are put back first, so a system that rewrote them (a small model
    # echoes the test file it was shown) is judged by the real tests, never by its own version.
    for name in task.test_files():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(task.source / name, ws / name)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    try:
        done = subprocess.run(
            [sys.executable if c == "python" else c for c in task.test_command],
            cwd=ws,
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return False, "the tests timed out after 120 s"
    return done.returncode == 0, (done.stdout + done.stderr)[-4000:]


async def solve(
    system: System, task: Task, scratch: Path, http: httpx.AsyncClient, base_url: str, fixtures: Path | None = None
) -> Result:
    ws = task.materialize(scratch / f"{task.name}-{abs(hash(system.name)) % 10**6}")
    # The tests must not be visible as a config for pytest outside the task (the repository's own pyproject).
    (ws / "pytest.ini").write_text("[pytest]\n")
    result = Result(task.name, task.kind, system.name)
    before = await prompt_tokens(http, base_url)
    start = time.perf_counter()
    attempt: Attempt = await system.first(task, ws)
    passed, output = run_tests(task, ws)
    result.attempts.append({**asdict(attempt), "passed": passed})
    result.passed_1 = result.passed_2 = passed
    if not passed and attempt.stop not in ("timeout", "error"):
        attempt = await system.retry(task, ws, output)
        passed, output = run_tests(task, ws)
        result.attempts.append({**asdict(attempt), "passed": passed})
        result.passed_2 = passed
    result.seconds = time.perf_counter() - start
    result.prompt_tokens = await prompt_tokens(http, base_url) - before
    if fixtures is not None and not result.passed_2:  # failures are data: the fake LLM and edit matching use them
        fixtures.mkdir(parents=True, exist_ok=True)
        name = f"{task.name}--{system.name.replace(' ', '_')}.json"
        record = {"task": task.name, "system": system.name, "attempts": result.attempts, "test_output": output[-3000:],
                  "transcript": system.transcript()}  # fmt: skip
        (fixtures / name).write_text(json.dumps(record, indent=1, default=str))
    shutil.rmtree(ws, ignore_errors=True)
    return result


def summarize(rows: list[Result]) -> dict[str, Any]:
    n = len(rows)
    attempts = [a for r in rows for a in r.attempts]
    tried = sum(a["calls_attempted"] for a in attempts)
    valid = sum(a["calls_valid"] for a in attempts)
    recoveries: dict[str, int] = {}
    stops: dict[str, int] = {}
    for a in attempts:
        for k, v in a["recoveries"].items():
            recoveries[k] = recoveries.get(k, 0) + v
        stops[a["stop"]] = stops.get(a["stop"], 0) + 1
    return {
        "tasks": n,
        "pass@1": sum(r.passed_1 for r in rows),
        "pass@2": sum(r.passed_2 for r in rows),
        "validity": (valid / tried) if tried else None,
        "calls": tried,
        "rounds_median": statistics.median(a["rounds"] for a in attempts) if attempts else 0,
        "prompt_tokens": sum(r.prompt_tokens for r in rows),
        "seconds_median": statistics.median(r.seconds for r in rows) if rows else 0.0,
        "seconds_total": sum(r.seconds for r in rows),
        "recoveries": recoveries,
        "stops": stops,
    }


def by_system(rows: list[Result]) -> dict[str, dict[str, Any]]:
    """The summary of each system's rows, in the order the systems first appear."""
    grouped: dict[str, list[Result]] = {}
    for r in rows:
        grouped.setdefault(r.system, []).append(r)
    return {name: summarize(rs) for name, rs in grouped.items()}


def table(label: str, summaries: dict[str, dict[str, Any]]) -> str:
    lines = [
        f"\n{label}",
        f"{'system':<34} {'pass@1':>7} {'pass@2':>7} {'valid':>6} {'calls':>6} {'rounds':>6} {'tokens':>8} "
        f"{'s/task':>7}  stops / recoveries",
    ]
    for name, s in summaries.items():
        validity = f"{100 * s['validity']:5.0f}%" if s["validity"] is not None else "    -"
        lines.append(
            f"{name:<34} {s['pass@1']:>3}/{s['tasks']:<3} {s['pass@2']:>3}/{s['tasks']:<3} {validity:>6} "
            f"{s['calls']:>6} {s['rounds_median']:>6} {s['prompt_tokens']:>8} {s['seconds_median']:>7.1f}  "
            f"{s['stops']} {s['recoveries']}"
        )
    return "\n".join(lines)


def make_systems(args: argparse.Namespace, base_url: str, model: str, store: Path) -> list[System]:
    systems: list[System] = []
    wanted = args.systems.split(",")
    t = args.temperature
    if "agent" in wanted:
        systems.append(AgentServerSystem(base_url, model, store, args.timeout, temperature=t))
    if "plain" in wanted:
        systems.append(PlainLoopSystem(base_url, model, args.timeout, temperature=t))
    if "wholefile" in wanted:
        systems.append(WholeFileSystem(base_url, model, args.timeout, temperature=t))
    # `a+b` switches several off in one system: a feature that acts only on the tool-call path (text calls, the
    # reduced tool set) is measured on that path, together with `files_format`.
    off = list(FEATURES) if args.ablation else [f for f in (args.off or "").split(",") if f]
    systems += [
        AgentServerSystem(base_url, model, store, args.timeout, tuple(f.split("+")), temperature=t) for f in off
    ]
    on = [f for f in (args.on or "").split(",") if f]
    systems += [AgentServerSystem(base_url, model, store, args.timeout, (), (f,), temperature=t) for f in on]
    if args.remember:  # the verdict needs agent-server both ways on the same tasks
        measured = {s.edit_format() for s in systems if isinstance(s, AgentServerSystem)}
        if "files" not in measured:
            systems.append(AgentServerSystem(base_url, model, store, args.timeout, (), ("files",), temperature=t))
        if "tools" not in measured:
            systems.append(AgentServerSystem(base_url, model, store, args.timeout, ("files_format",), temperature=t))
    return systems


async def run(args: argparse.Namespace, base_url: str, model: str) -> dict[str, Any]:
    names = args.tasks.split(",") if args.tasks else (SMOKE[:2] if args.quick else None)
    tasks = select(names, args.limit, set(args.kinds.split(",")) if args.kinds else None)
    scratch = Path(tempfile.mkdtemp(prefix="scorecard-"))
    fixtures = Path(args.fixtures) if args.fixtures else None
    rows: list[Result] = []
    async with httpx.AsyncClient(timeout=10) as http:
        systems = make_systems(args, base_url, model, scratch / "agent.db")
        formats = {s.name: f for s in systems if isinstance(s, AgentServerSystem) and (f := s.edit_format())}
        try:
            for task in tasks:
                for system in systems:
                    row = await solve(system, task, scratch, http, base_url, fixtures)
                    rows.append(row)
                    print(
                        f"{task.name:<24} {system.name:<34} pass@1 {int(row.passed_1)} pass@2 {int(row.passed_2)} "
                        f"{row.seconds:6.1f} s {row.prompt_tokens:>7} tok "
                        f"{[a['stop'] for a in row.attempts]}",
                        file=sys.stderr,
                        flush=True,
                    )
        finally:
            for system in systems:
                await system.close()
    shutil.rmtree(scratch, ignore_errors=True)
    return {
        "model": model,
        "window": args.window,
        "temperature": args.temperature,
        "tasks": [t.name for t in tasks],
        "summary": by_system(rows),
        "rows": [asdict(r) for r in rows],
        "formats": formats,
    }


def per_task(rows: list[dict[str, Any]]) -> str:
    """A line per task: which system passed it at the first attempt (1), only at the second (2), or not (.)."""
    systems = list(dict.fromkeys(r["system"] for r in rows))
    marks: dict[str, dict[str, str]] = {}
    for r in rows:
        marks.setdefault(r["task"], {})[r["system"]] = "1" if r["passed_1"] else "2" if r["passed_2"] else "."
    lines = ["", "per task (1 = passed at once, 2 = after seeing the test output, . = not): " + " | ".join(systems)]
    lines += [f"{task:<24} {' '.join(m.get(s, '-') for s in systems)}" for task, m in marks.items()]
    return "\n".join(lines)


def merge(paths: list[str]) -> dict[str, Any]:
    """One table from runs that split the tasks between them (one model server per core), read from their --json."""
    runs = []
    for p in paths:
        try:
            runs.append(json.loads(Path(p).read_text()))
        except (OSError, ValueError) as exc:
            raise SystemExit(f"--merge: cannot read the run {p}: {exc}") from None
    if len({(r["model"], r["window"], r.get("temperature")) for r in runs}) != 1:
        raise SystemExit("--merge: the runs used different models, windows or temperatures; their rows do not add up")
    rows = [Result(**row) for r in runs for row in r["rows"]]
    seen = {(r.task, r.system) for r in rows}
    if len(seen) != len(rows):
        raise SystemExit("--merge: a task was run by the same system in two of these runs")
    return {
        "model": runs[0]["model"],
        "window": runs[0]["window"],
        "temperature": runs[0].get("temperature"),
        "tasks": [t for r in runs for t in r["tasks"]],
        "summary": by_system(rows),
        "rows": [asdict(r) for r in rows],
        "wall_seconds": max(r.get("wall_seconds", 0.0) for r in runs),  # the runs ran side by side
        "formats": {name: fmt for r in runs for name, fmt in r.get("formats", {}).items()},
    }


def report(result: dict[str, Any], args: argparse.Namespace) -> None:
    sampled = "" if result.get("temperature") is None else f", temperature {result['temperature']}"
    title = f"{len(result['tasks'])} tasks, {result['model']}, window {result['window']}{sampled}"
    print(table(title, result["summary"]))
    print(f"wall time {result['wall_seconds']:.0f} s" + (" (the longest of the merged runs)" if args.merge else ""))
    if args.per_task:
        print(per_task(result["rows"]))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    if args.remember:
        try:
            print(remember(result, Path(args.store) if args.store else None, args.remember_as))
        except ValueError as exc:
            raise SystemExit(f"--remember: {exc}; nothing was remembered") from None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base-url", default=os.environ.get("AGENT_BENCH_LLM_URL"), help="a running llama.cpp server")
    ap.add_argument("--model", default=None, help="model name to send (default: the server's first)")
    ap.add_argument("--gguf", default=os.environ.get("AGENT_BENCH_GGUF"), help="start llama.cpp with this model")
    ap.add_argument("--window", type=int, default=8192, help="context window when --gguf starts the server")
    ap.add_argument("--systems", default="agent,plain,wholefile")
    ap.add_argument("--ablation", action="store_true", help="also agent-server with each small-model feature off")
    ap.add_argument("--off", default=None, help=f"also agent-server with these features off: {','.join(FEATURES)}")
    ap.add_argument("--on", default=None, help=f"also agent-server with these features on: {','.join(EXTRAS)}")
    ap.add_argument("--tasks", default=None, help="comma-separated task names")
    ap.add_argument("--kinds", default=None, help="exercise,workspace")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per attempt")
    ap.add_argument(
        "--temperature",
        type=float,
        default=None,
        help="every system's sampling temperature (0 = greedy; default: the server's)",
    )
    ap.add_argument("--quick", action="store_true", help="2 smoke tasks, every system: checks that it runs (CI)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--fixtures", default=None, help="write each failed task's exchange here (one JSON per task)")
    ap.add_argument("--merge", nargs="+", default=None, metavar="RUN.json", help="print one table from these runs")
    ap.add_argument("--per-task", action="store_true", help="also a line per task: who passed it")
    ap.add_argument(
        "--remember",
        action="store_true",
        help="run agent-server with files and with tool calls; the store remembers which finished more",
    )
    ap.add_argument("--remember-as", default=None, help="the model name agent-server will use (default: the run's)")
    ap.add_argument("--store", default=None, help="the store --remember writes (default: the configured one)")
    args = ap.parse_args()
    if args.merge:
        report(merge(args.merge), args)
        return
    if not args.base_url and not args.gguf:
        ap.error("give --base-url (a running llama.cpp server) or --gguf (a model to start one with)")
    server: ModelServer | None = None
    start = time.perf_counter()
    try:
        base_url = args.base_url
        if base_url is None:
            server = start_model_server(Path(args.gguf), args.window)
            base_url = server.url
        model = args.model or httpx.get(base_url.rstrip("/") + "/v1/models", timeout=30).json()["data"][0]["id"]
        result = asyncio.run(run(args, base_url, model))
    finally:
        if server is not None:
            server.stop()
    result["wall_seconds"] = time.perf_counter() - start
    report(result, args)


if __name__ == "__main__":
    main()
