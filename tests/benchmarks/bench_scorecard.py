"""Small-model scorecard: does the agent finish real coding tasks with a real model on a CPU, next to its peers?

Each task (tests/benchmarks/scorecard/: Exercism exercises, multi-file workspace tasks, bugs planted in real
libraries) is copied into a throwaway folder, one system works on it, the task's tests run; on a failure the system
sees the test output once and tries again (pass@1 / pass@2, as Aider's benchmark). Per task and in total: pass@1/@2,
"damaged" (the suite passes fewer tests than before the turn), rounds, prompt tokens the server evaluated and tokens
it generated (its /metrics counters, so cached prefixes do not count), wall time, and those per solved task,
tool-call validity (calls that parsed and named a real tool ÷ calls attempted, call-shaped text included),
recoveries used, stop reasons.

Systems (`--systems`): agent (agent-server in-process), agentcli (`agent-server chat --output-format json`),
aider (aider-chat; `aider:diff` forces a format), mini (mini-swe-agent), agentmini (agent-mini), opencode
(opencode-ai), plain (a naive tool loop), wholefile (the whole-file baseline). Peers install on first use into the
benchmark's cache (tests/benchmarks/scorecard/peer_install.py), never the project's environment.

    python tests/benchmarks/bench_scorecard.py --model 0.5b --systems agent,aider,mini,agentmini,opencode,wholefile,plain
        [--tasks leap,queue] [--limit N] [--kinds exercise,hard,workspace,repo] [--split tune|heldout|all]
        [--ablation] [--json out.json]                            # --model 0.5b|1.5b: the catalogue's GGUF
    python tests/benchmarks/bench_scorecard.py --base-url http://127.0.0.1:8080   # a llama.cpp server already running
    python tests/benchmarks/bench_scorecard.py --gguf model.gguf --window 4096      # starts llama.cpp itself
    python tests/benchmarks/bench_scorecard.py --quick --model 0.5b               # 1 task, every lane: does each run?
    python tests/benchmarks/bench_scorecard.py --merge a.json b.json --per-task  # runs that split the tasks
    python tests/benchmarks/bench_scorecard.py --chart a.json b.json --out both.svg  # one chart of several models
    python tests/benchmarks/bench_scorecard.py --base-url URL --model M --remember  # M edits the way that won

The model server must be a llama.cpp server (`--metrics` on, which `--gguf`/`--model` do) for the token counts; any
OpenAI-compatible server works for the rest. With --json the chart (pass@1 per system; solved against tokens) is
written beside it as .svg.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.scorecard import judge  # noqa: E402
from tests.benchmarks.scorecard.chart import write_chart  # noqa: E402
from tests.benchmarks.scorecard.cli_system import AgentCliSystem  # noqa: E402
from tests.benchmarks.scorecard.formats import remember  # noqa: E402
from tests.benchmarks.scorecard.model_server import ModelServer, start_model_server  # noqa: E402
from tests.benchmarks.scorecard.peer_run import PeerSystem, RunSettings, stop_children_on_signal  # noqa: E402
from tests.benchmarks.scorecard.peers import make_peer  # noqa: E402
from tests.benchmarks.scorecard.run_info import catalogue_entry, model_file, run_record  # noqa: E402
from tests.benchmarks.scorecard.summary import Result, by_system, per_task, table  # noqa: E402
from tests.benchmarks.scorecard.systems import (  # noqa: E402
    EXTRAS,
    FEATURES,
    MAX_TOKENS,
    AgentServerSystem,
    Attempt,
    PlainLoopSystem,
    System,
    WholeFileSystem,
)
from tests.benchmarks.scorecard.tasks import SMOKE, Task, select  # noqa: E402

COUNTERS = {
    "prompt": re.compile(r"^llamacpp:prompt_tokens_total\s+([0-9.e+]+)", re.M),
    "generated": re.compile(r"^llamacpp:tokens_predicted_total\s+([0-9.e+]+)", re.M),
}
BUSY = re.compile(r"^llamacpp:requests_processing\s+([0-9.e+]+)", re.M)
LANES = (
    "agent,agentcli,aider,mini,mini:text,agentmini,opencode,wholefile,plain"  # what --quick runs unless --systems says
)


async def counters(
    http: httpx.AsyncClient, base_url: str, key: str | None = None, settle_s: float = 600.0
) -> dict[str, int]:
    """The server's token counters (prompt tokens evaluated, tokens generated); 0 where it has none.

    Read once the server is idle: a system stopped at its time limit leaves its last request running on the server
    (llama.cpp finishes reading a prompt whose client is gone), and those tokens are that system's, not the next's."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    deadline = time.monotonic() + settle_s
    while True:
        try:
            text = (await http.get(base_url.rstrip("/") + "/metrics", headers=headers)).text
        except httpx.HTTPError:
            text = ""
        busy = BUSY.search(text)
        if busy is None or float(busy.group(1)) == 0 or time.monotonic() > deadline:
            break
        await asyncio.sleep(1.0)
    out = {}
    for name, pattern in COUNTERS.items():
        match = pattern.search(text)
        out[name] = int(float(match.group(1))) if match else 0
    return out


def run_tests(task: Task, ws: Path) -> tuple[bool, str]:
    verdict = judge.run_tests(task, ws)
    return verdict.passed, verdict.output


async def solve(
    system: System,
    task: Task,
    scratch: Path,
    http: httpx.AsyncClient,
    settings: RunSettings,
    baselines: judge.Baselines,
    fixtures: Path | None = None,
    attempts: int = 2,
) -> Result:
    ws = task.materialize(scratch / f"{task.name}-{abs(hash(system.name)) % 10**6}")
    # The tests must not be visible as a config for pytest outside the task (the repository's own pyproject); a
    # library keeps its own configuration.
    if task.kind != "repo":
        (ws / "pytest.ini").write_text("[pytest]\n")
    with task_environment(task):
        return await _solve(system, task, ws, http, settings, baselines, fixtures, attempts)


@contextlib.contextmanager
def task_environment(task: Task) -> Iterator[None]:
    """The task's Python first on PATH and its PYTHONPATH, for the systems that run in this process (their
    commands inherit it), as a user working on that library would have them; the peers get the same in their own
    environment (peer_run.base_env)."""
    saved = {k: os.environ.get(k) for k in ("PATH", "PYTHONPATH")}
    if task.python is not None:
        os.environ["PATH"] = os.pathsep.join([str(task.python.parent), saved["PATH"] or ""])
    os.environ.update(task.env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


async def _solve(
    system: System,
    task: Task,
    ws: Path,
    http: httpx.AsyncClient,
    settings: RunSettings,
    baselines: judge.Baselines,
    fixtures: Path | None,
    attempts: int,
) -> Result:
    before_tests = baselines.before(task)
    result = Result(task.name, task.kind, system.name, family=task.family, held_out=task.held_out)
    before = await counters(http, settings.base_url, settings.api_key)
    start = time.perf_counter()
    attempt: Attempt = await system.first(task, ws)
    verdict = judge.run_tests(task, ws)
    result.attempts.append({**asdict(attempt), "passed": verdict.passed})
    result.passed_1 = result.passed_2 = verdict.passed
    if not verdict.passed and attempts > 1 and attempt.stop not in ("timeout", "error"):
        attempt = await system.retry(task, ws, verdict.output)
        verdict = judge.run_tests(task, ws)
        result.attempts.append({**asdict(attempt), "passed": verdict.passed})
        result.passed_2 = verdict.passed
    result.seconds = time.perf_counter() - start
    after = await counters(http, settings.base_url, settings.api_key)
    result.prompt_tokens = after["prompt"] - before["prompt"]
    result.generated_tokens = after["generated"] - before["generated"]
    result.damaged = judge.damaged(before_tests, verdict)
    if fixtures is not None and not result.passed_2:  # failures are data: the fake LLM and edit matching use them
        fixtures.mkdir(parents=True, exist_ok=True)
        name = f"{task.name}--{system.name.replace(' ', '_')}.json"
        record = {"task": task.name, "system": system.name, "attempts": result.attempts,
                  "test_output": verdict.output[-3000:], "transcript": system.transcript()}  # fmt: skip
        (fixtures / name).write_text(json.dumps(record, indent=1, default=str))
    shutil.rmtree(ws, ignore_errors=True)
    return result


def make_systems(args: argparse.Namespace, settings: RunSettings, store: Path) -> list[System]:
    systems: list[System] = []
    base_url, model, timeout, t = settings.base_url, settings.model, args.timeout, args.temperature
    key = settings.api_key
    for lane in [w for w in args.systems.split(",") if w and w != "none"]:
        peer = make_peer(lane, settings)
        if peer is not None:
            systems.append(peer)
        elif lane == "agent":
            systems.append(AgentServerSystem(base_url, model, store, timeout, temperature=t, api_key=key))
        elif lane == "agentcli":
            systems.append(AgentCliSystem(settings))
        elif lane == "plain":
            systems.append(PlainLoopSystem(base_url, model, timeout, temperature=t, api_key=key))
        elif lane == "wholefile":
            systems.append(WholeFileSystem(base_url, model, timeout, temperature=t, api_key=key))
        else:
            raise SystemExit(f"--systems: unknown lane {lane!r} (known: {LANES}, aider:FORMAT)")
    # `a+b` switches several off in one system: a feature that acts only on the tool-call path (text calls, the
    # reduced tool set) is measured on that path, together with `files_format`.
    off = list(FEATURES) if args.ablation else [f for f in (args.off or "").split(",") if f]
    variant = [(tuple(f.split("+")), ()) for f in off] + [((), (f,)) for f in (args.on or "").split(",") if f]
    if args.remember:  # the verdict needs agent-server both ways on the same tasks
        measured = {s.edit_format() for s in systems if isinstance(s, AgentServerSystem)}
        measured |= {AgentServerSystem(base_url, model, store, timeout, a, b).edit_format() for a, b in variant}
        variant += [((), ("files",))] if "files" not in measured else []
        variant += [(("files_format",), ())] if "tools" not in measured else []
    systems += [
        AgentServerSystem(base_url, model, store, timeout, a, b, temperature=t, api_key=key) for a, b in variant
    ]
    return systems


def describe(system: System) -> dict[str, Any]:
    """The version and command line of each lane, for the results."""
    if isinstance(system, PeerSystem):
        return system.describe()
    from agent_server import __version__

    how = {AgentServerSystem: "in-process AgentService (tests/benchmarks/scorecard/systems.py)"}
    return {"package": "agent-server", "version": __version__,
            "command": how.get(type(system), f"{type(system).__name__}: direct /v1/chat/completions calls")}  # fmt: skip


async def run(args: argparse.Namespace, settings: RunSettings) -> dict[str, Any]:
    names = args.tasks.split(",") if args.tasks else (SMOKE[:1] if args.quick else None)
    tasks = select(names, args.limit, set(args.kinds.split(",")) if args.kinds else None, args.split)
    if not names and not args.kinds and not args.limit and not any(t.kind == "repo" for t in tasks):
        print("(no repository tasks: build them with tests/benchmarks/scorecard/build_repo_tasks.py)", file=sys.stderr)
    fixtures = Path(args.fixtures) if args.fixtures else None
    rows: list[Result] = []
    baselines = judge.Baselines()
    async with httpx.AsyncClient(timeout=10) as http:
        systems = make_systems(args, settings, settings.scratch / "agent.db")
        for system in systems:
            if isinstance(system, PeerSystem):
                await asyncio.to_thread(system.prepare)  # installs a peer on first use (minutes, off the loop)
        formats = {s.name: f for s in systems if isinstance(s, AgentServerSystem) and (f := s.edit_format())}
        try:
            for task in tasks:
                for system in systems:
                    row = await solve(system, task, settings.scratch, http, settings, baselines, fixtures,
                                      1 if args.quick else 2)  # fmt: skip
                    rows.append(row)
                    print(
                        f"{task.name:<24} {system.name:<30} pass@1 {int(row.passed_1)} pass@2 {int(row.passed_2)} "
                        f"{row.seconds:6.1f} s {row.prompt_tokens:>7} tok {row.generated_tokens:>6} gen "
                        f"{[a['stop'] for a in row.attempts]}",
                        file=sys.stderr,
                        flush=True,
                    )
        finally:
            for system in systems:
                await system.close()
    return {
        "model": settings.model,
        "window": args.window,
        "temperature": args.temperature,
        "timeout_s": args.timeout,
        "max_tokens": settings.max_tokens,
        "tasks": [t.name for t in tasks],
        "held_out": [t.name for t in tasks if t.held_out],
        "summary": by_system(rows),
        "rows": [asdict(r) for r in rows],
        "formats": formats,
        "systems": {s.name: describe(s) for s in systems},
    }


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
        "tasks": list(dict.fromkeys(t for r in runs for t in r["tasks"])),  # runs of other systems repeat them
        "summary": by_system(rows),
        "rows": [asdict(r) for r in rows],
        "wall_seconds": max(r.get("wall_seconds", 0.0) for r in runs),  # the runs ran side by side
        "formats": {name: fmt for r in runs for name, fmt in r.get("formats", {}).items()},
        "systems": {name: d for r in runs for name, d in r.get("systems", {}).items()},
        "runs": [r["run"] for r in runs if "run" in r],
    }


def report(result: dict[str, Any], args: argparse.Namespace) -> None:
    sampled = "" if result.get("temperature") is None else f", temperature {result['temperature']}"
    title = f"{len(result['tasks'])} tasks, {result['model']}, window {result['window']}{sampled}"
    print(table(title, result["summary"]))
    print(f"wall time {result['wall_seconds']:.0f} s" + (" (the longest of the merged runs)" if args.merge else ""))
    for name, lane in result.get("systems", {}).items():
        if lane.get("unavailable"):
            print(f"{name}: did not run: {lane['unavailable']}")
    if args.per_task:
        print(per_task(result["rows"]))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
        print(f"chart: {write_chart([result], Path(args.json).with_suffix('.svg'))}")
    if args.remember:
        try:
            print(remember(result, Path(args.store) if args.store else None, args.remember_as))
        except ValueError as exc:
            raise SystemExit(f"--remember: {exc}; nothing was remembered") from None


def chart(paths: list[str], out: str | None) -> None:
    runs = [json.loads(Path(p).read_text()) for p in paths]
    target = Path(out) if out else Path(paths[0]).with_name("scorecard-chart.svg")
    print(f"chart: {write_chart(runs, target)}")


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base-url", default=os.environ.get("AGENT_BENCH_LLM_URL"), help="a running llama.cpp server")
    ap.add_argument(
        "--model",
        default=None,
        help="0.5b, 1.5b or smollm2-135m (no --base-url/--gguf): the embedded catalogue's model, started here; "
        "else the model name to send (default: the server's first)",
    )
    ap.add_argument("--api-key", default=os.environ.get("AGENT_BENCH_LLM_KEY"), help="the --base-url server's key")
    ap.add_argument("--gguf", default=os.environ.get("AGENT_BENCH_GGUF"), help="start llama.cpp with this model")
    ap.add_argument("--window", type=int, default=8192, help="context window when --gguf starts the server")
    ap.add_argument("--systems", default=None, help=f"lanes, comma-separated (default agent,plain,wholefile): {LANES}")
    ap.add_argument("--ablation", action="store_true", help="also agent-server with each small-model feature off")
    ap.add_argument("--off", default=None, help=f"also agent-server with these features off: {','.join(FEATURES)}")
    ap.add_argument("--on", default=None, help=f"also agent-server with these features on: {','.join(EXTRAS)}")
    ap.add_argument("--tasks", default=None, help="comma-separated task names")
    ap.add_argument("--kinds", default=None, help="task families: exercise,hard,workspace,repo")
    ap.add_argument("--split", default="all", choices=["all", "tune", "heldout"], help="held-out tasks: tasks.py")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=None, help="seconds per attempt (default 300)")
    ap.add_argument(
        "--temperature",
        type=float,
        default=None,
        help="every system's sampling temperature (0 = greedy; default: the server's)",
    )
    ap.add_argument("--quick", action="store_true", help="1 smoke task, one attempt, every lane: checks each runs")
    ap.add_argument("--json", default=None, help="write the results here (and the chart beside it, .svg)")
    ap.add_argument("--fixtures", default=None, help="write each failed task's exchange here (one JSON per task)")
    ap.add_argument("--merge", nargs="+", default=None, metavar="RUN.json", help="print one table from these runs")
    ap.add_argument("--chart", nargs="+", default=None, metavar="RUN.json", help="one chart of these runs (--out)")
    ap.add_argument("--out", default=None, help="where --chart writes its SVG")
    ap.add_argument("--per-task", action="store_true", help="also a line per task: who passed it")
    ap.add_argument(
        "--remember",
        action="store_true",
        help="run agent-server with files and with tool calls; the store remembers which finished more",
    )
    ap.add_argument("--remember-as", default=None, help="the model name agent-server will use (default: the run's)")
    ap.add_argument("--store", default=None, help="the store --remember writes (default: the configured one)")
    return ap


def main() -> None:
    ap = parser()
    args = ap.parse_args()
    stop_children_on_signal()
    if args.chart:
        chart(args.chart, args.out)
        return
    if args.merge:
        report(merge(args.merge), args)
        return
    args.systems = args.systems or (LANES if args.quick else "agent,plain,wholefile")
    args.timeout = args.timeout or 300.0
    entry = catalogue_entry(args.model) if not args.base_url and not args.gguf else None
    if entry is not None:  # --model 0.5b|1.5b: the built-in model's file, served under its catalogue name
        args.gguf, args.model = str(model_file(entry)), entry.name
    if not args.base_url and not args.gguf:
        ap.error("give --model 0.5b|1.5b, --base-url (a running llama.cpp server) or --gguf (a model to start one)")
    server: ModelServer | None = None
    start = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="scorecard-"))
    try:
        base_url, key = args.base_url, args.api_key
        if base_url is None:
            server = start_model_server(Path(args.gguf), args.window, alias=args.model or "qwen2.5-coder-0.5b-instruct")
            base_url, key = server.url, server.api_key
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        models = httpx.get(base_url.rstrip("/") + "/v1/models", timeout=30, headers=headers).json()
        model = args.model or models["data"][0]["id"]
        settings = RunSettings(base_url, model, args.window, args.temperature, args.timeout, scratch, key, MAX_TOKENS)
        result = asyncio.run(run(args, settings))
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    result["wall_seconds"] = time.perf_counter() - start
    result["run"] = run_record(sys.argv[1:], Path(args.gguf) if args.gguf else None)
    report(result, args)


if __name__ == "__main__":
    main()
