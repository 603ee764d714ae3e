"""Judging a workspace after a system's turn: the task's own tests put back and run, the verdict, and whether the turn
left the suite worse than it found it ("damaged": fewer tests pass than before the turn).

Damage is counted where a suite has tests that pass before the turn: workspace tasks (measured on a fresh copy,
once per task) and repository tasks (recorded when the task was built). An exercise starts from a stub whose tests
all fail (and its run stops at the first failure), so there is nothing there to damage: None.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .tasks import Task

PASSED = re.compile(r"(\d+) passed")


@dataclass
class Verdict:
    passed: bool
    output: str  # the tail, for the retry prompt and the fixtures
    tests_passed: int | None  # None: no pytest summary (a crash, a timeout)


def passed_count(output: str) -> int | None:
    """The number of passed tests in pytest's last summary line; 0 when it ran and none passed."""
    lines = [line for line in output.strip().splitlines() if line.strip()]
    if not lines:
        return None
    last = lines[-1]
    match = PASSED.search(last)
    if match:
        return int(match.group(1))
    return 0 if re.search(r"\d+ (failed|error|errors|skipped)|no tests ran", last) else None


def run_tests(task: Task, ws: Path) -> Verdict:
    # As Aider's benchmark: the task's own tests are put back first, so a system that rewrote them (a small model
    # echoes the test file it was shown) is judged by the real tests, never by its own version.
    for name in task.test_files():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(task.source / name, ws / name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "PYTHONPATH"))}
    env |= {"PYTHONDONTWRITEBYTECODE": "1", **task.env}
    python = str(task.python or sys.executable)
    try:
        done = subprocess.run(
            [python if c == "python" else c for c in task.test_command],
            cwd=ws,
            capture_output=True,
            text=True,
            timeout=task.timeout_s,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return Verdict(False, f"the tests timed out after {task.timeout_s:.0f} s", None)
    output = done.stdout + done.stderr
    count = passed_count(done.stdout)
    passed = done.returncode == 0
    if passed and task.clean_passed is not None:  # every test of the library passes again, none skipped away
        passed = count is not None and count >= task.clean_passed
    return Verdict(passed, output[-4000:], count)


class Baselines:
    """How many tests pass before the turn, per task (workspace tasks measured once on a fresh copy)."""

    def __init__(self) -> None:
        self._known: dict[str, int | None] = {}

    def before(self, task: Task) -> int | None:
        if task.kind == "exercise":
            return None
        if task.baseline_passed is not None:
            return task.baseline_passed
        if task.name not in self._known:
            with tempfile.TemporaryDirectory(prefix="scorecard-baseline-") as tmp:
                ws = task.materialize(Path(tmp) / task.name)
                (ws / "pytest.ini").write_text("[pytest]\n")
                self._known[task.name] = run_tests(task, ws).tests_passed
        return self._known[task.name]


def damaged(before: int | None, after: Verdict) -> bool | None:
    """True when fewer of the suite's tests pass after the turn than before it; None where not counted."""
    if before is None:
        return None
    return (after.tests_passed or 0) < before
