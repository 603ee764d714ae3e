"""The scorecard's tasks: Exercism exercises (instructions, stub, tests) and multi-file workspace tasks.

Each task is a workspace (files copied into a throwaway folder), a request, and a test command run after the turn.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXERCISES = HERE / "exercises"
WORKSPACES = HERE / "workspaces"
# The smoke run of the real-model lane and --quick: small, quick to test, and varied (a bug, a feature, an exercise).
SMOKE = ["leap", "isogram", "temperature", "queue", "reverse-string"]


@dataclass
class Task:
    name: str
    kind: str  # "exercise" | "workspace"
    source: Path
    request: str
    test_command: list[str]
    files: list[str] = field(default_factory=list)  # what a whole-file system shows the model (workspace-relative)
    target: str | None = None  # the file an exercise's answer goes to

    def test_files(self) -> list[str]:
        """The task's own tests (workspace-relative): what decides a pass, so no system may change them."""
        if self.kind == "exercise":
            return [f for f in self.files if f != self.target]
        return sorted(str(p.relative_to(self.source)) for p in (self.source / "tests").rglob("*.py"))

    def materialize(self, dest: Path) -> Path:
        shutil.copytree(self.source, dest, ignore=shutil.ignore_patterns("task.json", "instructions.md"))
        return dest


def exercise(path: Path) -> Task:
    meta = json.loads((path / "task.json").read_text())
    solution, test = meta["solution"], meta["test"]
    instructions = (path / "instructions.md").read_text().strip()
    request = (
        f"Solve this exercise by writing the code in {solution}. The tests in {test} must pass "
        f"(run them with `python -m pytest -q {test}`).\n\n{instructions}"
    )
    return Task(
        name=path.name,
        kind="exercise",
        source=path,
        request=request,
        test_command=["python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", test],
        files=[solution, test],
        target=solution,
    )


def workspace(path: Path) -> Task:
    meta = json.loads((path / "task.json").read_text())
    files = sorted(str(p.relative_to(path)) for p in path.rglob("*.py") if p.is_file() and "__pycache__" not in p.parts)
    return Task(
        name=path.name,
        kind="workspace",
        source=path,
        request=meta["request"],
        test_command=["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        files=files,
    )


def all_tasks() -> list[Task]:
    out = [exercise(p) for p in sorted(EXERCISES.iterdir()) if (p / "task.json").is_file()]
    out += [workspace(p) for p in sorted(WORKSPACES.iterdir()) if (p / "task.json").is_file()]
    return out


def select(names: list[str] | None, limit: int | None = None, kinds: set[str] | None = None) -> list[Task]:
    tasks = all_tasks()
    if names:
        by_name = {t.name: t for t in tasks}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise SystemExit(f"unknown tasks: {', '.join(missing)}")
        tasks = [by_name[n] for n in names]
    if kinds:
        tasks = [t for t in tasks if t.kind in kinds]
    return tasks[:limit] if limit else tasks
