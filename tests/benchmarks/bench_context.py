"""The harness's own work per round with a 500-message history: prune + estimate + budget gate + one store append.

Run: python tests/benchmarks/bench_context.py [--rounds N]
Prints median and p95 per round in ms, and the ratio to a baseline measured in the same run: a bare
`json.dumps` of the same history (the least any harness does to send it).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from agent_server.config import ContextConfig
from agent_server.context import check_budget, estimate_messages, estimate_tools, prune_tool_results
from agent_server.llm.base import ToolSpec
from agent_server.messages import Message, ToolCall
from agent_server.store import Store


def history(n: int) -> list[Message]:
    out = [Message("system", "You are a coding agent. " * 40)]
    i = 0
    while len(out) < n:
        out.append(Message("user", f"Please fix issue {i}. " + "detail " * 40))
        out.append(Message("assistant", "", tool_calls=[ToolCall(f"c{i}", "read_file", {"path": f"src/m{i}.py"})]))
        out.append(Message("tool", "line of code\n" * 300, tool_call_id=f"c{i}", tool_name="read_file"))
        out.append(Message("assistant", f"Fixed issue {i}. " + "because " * 60))
        i += 1
    return out[:n]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks that the benchmark runs (CI)")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.messages = 10, 50
    cfg = ContextConfig()
    msgs = history(args.messages)
    tools = [ToolSpec(f"tool{i}", "does a thing " * 10, {"type": "object", "properties": {"x": {}}}) for i in range(12)]
    tool_tokens = estimate_tools(tools)

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        sid = store.create_session("/bench").id
        for m in msgs:
            store.append_message(sid, m)
        harness: list[float] = []
        baseline: list[float] = []
        for r in range(args.rounds):
            new = Message("tool", f"result {r}\n" + "output\n" * 200, tool_call_id=f"x{r}", tool_name="run_command")

            t0 = time.perf_counter()
            json.dumps([asdict(m) for m in msgs])
            baseline.append(time.perf_counter() - t0)

            t0 = time.perf_counter()
            store.append_message(sid, new)
            pruned = prune_tool_results(msgs, cfg.keep_full_turns, cfg.old_result_chars)
            used = estimate_messages(pruned) + tool_tokens
            check_budget(used, 131072, cfg.min_remaining)
            harness.append(time.perf_counter() - t0)
        store.close()

    med, p95 = statistics.median(harness) * 1e3, percentile(harness, 0.95) * 1e3
    bmed, bp95 = statistics.median(baseline) * 1e3, percentile(baseline, 0.95) * 1e3
    print(f"history: {len(msgs)} messages, {args.rounds} rounds")
    print(f"harness per round (prune + estimate + budget + store append): median {med:.2f} ms, p95 {p95:.2f} ms")
    print(f"baseline json.dumps of the same history:                     median {bmed:.2f} ms, p95 {bp95:.2f} ms")
    print(f"ratio harness / baseline: median {med / bmed:.2f}x, p95 {p95 / bp95:.2f}x")
    print(f"target < 10 ms median: {'met' if med < 10 else 'NOT met'}")


if __name__ == "__main__":
    main()
