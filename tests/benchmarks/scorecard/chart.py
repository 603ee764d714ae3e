"""The scorecard's chart, drawn from its own results JSON as a small hand-written SVG (no plotting library needed):

- left: pass@1 per system, one bar per model (runs of several models side by side: `--chart a.json b.json`);
- right: solved tasks (pass@2) against tokens spent (prompt tokens the server evaluated + generated tokens), one
  point per system and model, so a system that wins by spending ten times more is seen doing so.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

COLOURS = ["#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5", "#9c6b4e"]
W = 980
PLOT_TOP, PLOT_H = 60, 260
BASE = PLOT_TOP + PLOT_H
KEY_TOP = BASE + 95  # below the slanted system names under the bars (up to ~30 characters at -30°)
KEY_LINE = 16


def _text(x: float, y: float, s: str, size: int = 12, anchor: str = "start", rotate: int = 0) -> str:
    turn = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-family="sans-serif"{turn}>{escape(s)}</text>')  # fmt: skip


def spent(summary: dict[str, Any]) -> int:
    return int(summary.get("prompt_tokens", 0)) + int(summary.get("generated_tokens", 0))


FAMILIES = {
    "exercise": "exercises",
    "hard": "harder exercises",
    "workspace": "workspace tasks",
    "repo": "repository tasks",
}


def label(run: dict[str, Any]) -> str:
    """What a run is in the legend: its model, and its task family and count (two runs of one model on different
    families are two entries)."""
    families = list(dict.fromkeys(str(row.get("family") or row.get("kind", "")) for row in run.get("rows", [])))
    family = " + ".join(FAMILIES.get(f, f) for f in families if f)
    # A merged run's systems may have run different tasks (a peer on six, agent-server on twelve): say the range.
    counts = sorted({int(s["tasks"]) for s in run.get("summary", {}).values()}) or [len(run.get("tasks", []))]
    count = str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    what = f", {count} {family}" if family else ""
    return f"{run['model']}{what} (window {run.get('window')})"


def _bars(runs: list[dict[str, Any]], systems: list[str], x0: float, width: float) -> list[str]:
    out = [_text(x0, 30, "pass@1 per system (bars: models)", 14)]
    ceiling = max((s["tasks"] for r in runs for s in r["summary"].values()), default=1) or 1
    base = BASE
    out.append(f'<line x1="{x0}" y1="{base}" x2="{x0 + width}" y2="{base}" stroke="#333"/>')
    slot = width / max(len(systems), 1)
    bar = slot * 0.8 / max(len(runs), 1)
    for i, name in enumerate(systems):
        for j, run in enumerate(runs):
            s = run["summary"].get(name)
            if s is None:
                continue
            h = PLOT_H * s["pass@1"] / ceiling
            x = x0 + i * slot + slot * 0.1 + j * bar
            out.append(f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                       f'fill="{COLOURS[j % len(COLOURS)]}"><title>{escape(name)}, {escape(run["model"])}: '
                       f'{s["pass@1"]}/{s["tasks"]}</title></rect>')  # fmt: skip
            out.append(_text(x + bar / 2, base - h - 3, f"{s['pass@1']}/{s['tasks']}", 10, "middle"))
        out.append(_text(x0 + (i + 0.5) * slot, base + 14, name, 10, "end", -30))
    for j, run in enumerate(runs):
        y = KEY_TOP + KEY_LINE * j
        out.append(f'<rect x="{x0}" y="{y - 9}" width="10" height="10" fill="{COLOURS[j % len(COLOURS)]}"/>')
        out.append(_text(x0 + 14, y, f"run {j + 1}: {label(run)}", 11))
    return out


def _scatter(runs: list[dict[str, Any]], systems: list[str], x0: float, width: float) -> list[str]:
    out = [_text(x0, 30, "solved (pass@2) against tokens spent", 14)]
    points = [(name, j, s) for j, r in enumerate(runs) for name, s in r["summary"].items()]
    most_tokens = max((spent(s) for _, _, s in points), default=1) or 1
    most_solved = max((s["pass@2"] for _, _, s in points), default=1) or 1
    base = BASE
    out.append(f'<line x1="{x0}" y1="{base}" x2="{x0 + width}" y2="{base}" stroke="#333"/>')
    out.append(f'<line x1="{x0}" y1="{PLOT_TOP}" x2="{x0}" y2="{base}" stroke="#333"/>')
    out.append(_text(x0 + width, base + 30, f"tokens spent (max {most_tokens:,})", 11, "end"))
    out.append(_text(x0 - 8, PLOT_TOP + PLOT_H / 2, f"solved (max {most_solved})", 11, "middle", -90))
    for name, j, s in points:
        x = x0 + width * spent(s) / most_tokens
        y = base - PLOT_H * s["pass@2"] / most_solved
        colour = COLOURS[systems.index(name) % len(COLOURS)] if name in systems else "#999"
        marker = "circle" if j % 2 == 0 else "rect"
        shape = (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{colour}">' if marker == "circle"
                 else f'<rect x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" height="10" fill="{colour}">')  # fmt: skip
        tag = "circle" if marker == "circle" else "rect"
        out.append(f"{shape}<title>{escape(name)}, {escape(runs[j]['model'])}: {s['pass@2']} solved, "
                   f"{spent(s):,} tokens</title></{tag}>")  # fmt: skip
        if s["pass@2"]:  # the points on the axis crowd each other: the colour key below names them instead
            right = x > x0 + width * 0.75  # a label near the edge goes on the point's left
            out.append(_text(x - 7 if right else x + 7, y + 4, name, 10, "end" if right else "start"))
    shapes = ", ".join(f"{'circle' if j % 2 == 0 else 'square'}: run {j + 1}" for j in range(len(runs)))
    out.append(_text(x0, KEY_TOP, shapes, 11))
    for i, name in enumerate(systems):  # two columns of system colours
        x, y = x0 + (i % 2) * width / 2, KEY_TOP + KEY_LINE * (1 + i // 2)
        out.append(f'<circle cx="{x + 5:.1f}" cy="{y - 4:.1f}" r="5" fill="{COLOURS[i % len(COLOURS)]}"/>')
        out.append(_text(x + 14, y, name, 11))
    return out


def height(runs: int, systems: int) -> int:
    """Tall enough for the longer of the two keys: one line a run on the left, a shapes line and two columns of
    systems on the right."""
    return KEY_TOP + KEY_LINE * max(runs, 1 + (systems + 1) // 2) + 8


def svg(runs: list[dict[str, Any]]) -> str:
    """The chart of one or more results (each one model's run)."""
    systems = list(dict.fromkeys(name for r in runs for name in r["summary"]))
    h = height(len(runs), len(systems))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}">',
             f'<rect width="{W}" height="{h}" fill="white"/>']  # fmt: skip
    parts += _bars(runs, systems, 60, 420)
    parts += _scatter(runs, systems, 570, 370)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write_chart(runs: list[dict[str, Any]], path: Path) -> Path:
    path.write_text(svg(runs))
    return path
