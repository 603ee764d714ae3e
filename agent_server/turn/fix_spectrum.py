"""Which of the lines the failing test ran to try first: those that few of the passing tests ran.

The fix trials start with the failing call's own statements, in line order, a dozen at most (`fix_trials.py`): a bug
in a helper it calls, or low in a long function, is never reached. The trial driver's baseline run of the named tests'
files records which lines each test ran (`pytest_trace/agent_server_trials.py`, `spectrum.json`); a line that the
failing tests ran and no passing test did is more likely at fault than one every test runs: spectrum-based fault
localization, with the Ochiai score (Abreu et al., 2007), as AutoCodeRover uses it. The later rounds of trials take
the lines in that order, including those of functions the traced call never listed (a helper's, found in the same
files); equal scores keep the traced order.
"""

from __future__ import annotations

import ast
import json
import math
from dataclasses import dataclass
from pathlib import Path

from .failure_path import Call, parsed
from .fix_trials import Planned, Unit, units


@dataclass(frozen=True)
class Spectrum:
    """For each line (real path, number) a failing test ran: how many failing tests ran it, how many passing."""

    failing: int
    lines: dict[tuple[str, int], tuple[int, int]]

    def score(self, path: Path, first: int, last: int) -> float:
        """The Ochiai score of the most suspicious of lines `first`-`last` of `path`: 1 for a line every failing test
        ran and no passing test did, 0 for one no failing test ran."""
        real = str(path.resolve())
        best = 0.0
        for number in range(first, last + 1):
            failed, passed = self.lines.get((real, number), (0, 0))
            if failed and self.failing:
                best = max(best, failed / math.sqrt(self.failing * (failed + passed)))
        return best


def read_spectrum(path: Path) -> Spectrum | None:
    """The driver's `spectrum.json`; None when it is missing, unreadable or counted no failing test."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        failing = int(raw["failing"])
        lines = {
            (str(file), int(number)): (int(counts[0]), int(counts[1]))
            for file, numbers in raw["lines"].items()
            for number, counts in numbers.items()
        }
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    return Spectrum(failing, lines) if failing > 0 and lines else None


def ranked(plan: list[Planned], spectrum: Spectrum) -> list[Planned]:
    """`plan`'s statements and those of the other functions of its files that the failing tests ran, most suspicious
    first (equal scores: the plan's order, then the file's). A statement no failing test ran comes last."""
    if not plan:
        return []
    entry = plan[0][0]  # the test's own call: what the request for a rewrite tells the model the test called
    out = list(plan)
    known = {(p.resolve(), u.first) for _c, p, _s, u in plan}
    for path, source, unit in _more_units(plan, spectrum):
        if (path.resolve(), unit.first) not in known:
            known.add((path.resolve(), unit.first))
            out.append((entry, path, source, unit))
    order = {id(item): i for i, item in enumerate(out)}
    return sorted(out, key=lambda item: (-spectrum.score(item[1], item[3].first, item[3].last), order[id(item)]))


def _more_units(plan: list[Planned], spectrum: Spectrum) -> list[tuple[Path, str, Unit]]:
    """The statements of the plan's files that the failing tests ran, function by function, in line order."""
    found: list[tuple[Path, str, Unit]] = []
    files = {p.resolve(): (p, s, c.file) for c, p, s, _u in plan}
    for real, (path, source, relative) in files.items():
        ran = sorted(n for (file, n), (failed, _p) in spectrum.lines.items() if file == str(real) and failed)
        tree = parsed(source)
        if tree is None or not ran:
            continue
        defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        functions: dict[int, tuple[ast.FunctionDef | ast.AsyncFunctionDef, list[int]]] = {}
        for number in ran:
            holding = [n for n in defs if n.lineno < number <= (n.end_lineno or 0)]
            if holding:
                node = max(holding, key=lambda n: n.lineno)  # the innermost
                functions.setdefault(node.lineno, (node, []))[1].append(number)
        for start in sorted(functions):
            node, numbers = functions[start]
            call = Call(file=relative, function=node.name, first_line=node.lineno, lines=dict.fromkeys(numbers, 1))
            found += [(path, source, unit) for unit in units(source, call)]
    return found
