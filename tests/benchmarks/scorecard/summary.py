"""The scorecard's figures from its rows: per system pass@1/@2, damage, validity, and what the passes cost (prompt
tokens the server evaluated, tokens it generated, wall time, in all and per solved task), printed as a table."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any


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
    generated_tokens: int = 0
    family: str = ""
    held_out: bool = False
    damaged: bool | None = None  # fewer of the suite's tests pass after the turn than before (None: not counted)


def _per(total: float, solved: int) -> float | None:
    return round(total / solved, 1) if solved else None


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
    solved = sum(r.passed_2 for r in rows)
    prompt, generated = sum(r.prompt_tokens for r in rows), sum(r.generated_tokens for r in rows)
    seconds = sum(r.seconds for r in rows)
    counted = [r for r in rows if r.damaged is not None]
    return {
        "tasks": n,
        "pass@1": sum(r.passed_1 for r in rows),
        "pass@2": solved,
        "damaged": sum(bool(r.damaged) for r in counted),
        "damage_counted": len(counted),
        "validity": (valid / tried) if tried else None,
        "calls": tried,
        "rounds_median": statistics.median(a["rounds"] for a in attempts) if attempts else 0,
        "prompt_tokens": prompt,
        "generated_tokens": generated,
        "seconds_median": statistics.median(r.seconds for r in rows) if rows else 0.0,
        "seconds_total": seconds,
        # what one solved task cost (pass@2: the tokens and time count both attempts)
        "per_solved": {
            "prompt_tokens": _per(prompt, solved),
            "generated_tokens": _per(generated, solved),
            "seconds": _per(seconds, solved),
        },
        "recoveries": recoveries,
        "stops": stops,
    }


def by_system(rows: list[Result]) -> dict[str, dict[str, Any]]:
    """The summary of each system's rows, in the order the systems first appear."""
    grouped: dict[str, list[Result]] = {}
    for r in rows:
        grouped.setdefault(r.system, []).append(r)
    return {name: summarize(rs) for name, rs in grouped.items()}


def _cost(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def table(label: str, summaries: dict[str, dict[str, Any]]) -> str:
    lines = [
        f"\n{label}",
        f"{'system':<30} {'pass@1':>7} {'pass@2':>7} {'damaged':>7} {'valid':>6} {'calls':>6} {'rounds':>6} "
        f"{'tokens':>8} {'gen':>7} {'s/task':>7} {'tok/solved':>10} {'s/solved':>8}  stops / recoveries",
    ]
    for name, s in summaries.items():
        validity = f"{100 * s['validity']:5.0f}%" if s["validity"] is not None else "    -"
        damaged = f"{s.get('damaged', 0)}/{s.get('damage_counted', 0)}"
        per = s.get("per_solved") or {}
        spent = None if per.get("prompt_tokens") is None else per["prompt_tokens"] + (per["generated_tokens"] or 0)
        lines.append(
            f"{name:<30} {s['pass@1']:>3}/{s['tasks']:<3} {s['pass@2']:>3}/{s['tasks']:<3} {damaged:>7} {validity:>6} "
            f"{s['calls']:>6} {s['rounds_median']:>6} {s['prompt_tokens']:>8} {s.get('generated_tokens', 0):>7} "
            f"{s['seconds_median']:>7.1f} {_cost(spent):>10} {_cost(per.get('seconds')):>8}  "
            f"{s['stops']} {s['recoveries']}"
        )
    return "\n".join(lines)


def per_task(rows: list[dict[str, Any]]) -> str:
    """A line per task: which system passed it at the first attempt (1), only at the second (2), or not (.); a
    damaged suite is marked x."""
    systems = list(dict.fromkeys(r["system"] for r in rows))
    marks: dict[str, dict[str, str]] = {}
    for r in rows:
        mark = "1" if r["passed_1"] else "2" if r["passed_2"] else "x" if r.get("damaged") else "."
        marks.setdefault(r["task"], {})[r["system"]] = mark
    lines = [
        "",
        "per task (1 = passed at once, 2 = after seeing the test output, x = left more tests failing, . = not): "
        + " | ".join(systems),
    ]
    lines += [f"{task:<24} {' '.join(m.get(s, '-') for s in systems)}" for task, m in marks.items()]
    return "\n".join(lines)
