"""The scorecard's tasks: Exercism exercises (instructions, stub, tests), multi-file workspace tasks and repository
tasks (a bug planted in a real library, built into the benchmark's cache by `build_repo_tasks.py`).

Each task is a workspace (files copied into a throwaway folder), a request, and a test command run after the turn.
Families: `exercise` (Exercism difficulty 1-2), `hard` (difficulty 3-5), `workspace`, `repo`. A third of every family
is held out (`HELD_OUT` below): nobody tunes agent-server on those tasks; `--split heldout` runs only them.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .repo_tasks import built_repo_tasks

HERE = Path(__file__).resolve().parent
EXERCISES = HERE / "exercises"
WORKSPACES = HERE / "workspaces"
# The smoke run of the real-model lane and --quick: small, quick to test, and varied (a bug, a feature, an exercise).
SMOKE = ["leap", "isogram", "temperature", "queue", "reverse-string"]
# Tasks the earlier tuning measured on by name (the smoke run, the subsets of docs/scorecard.md): never held out.
TUNED = ("leap", "isogram", "hamming", "pangram", "raindrops", "reverse-string", "two-fer", "temperature", "config",
         "queue", "armstrong-numbers")  # fmt: skip
# The held-out third of every family (a third of its tasks, rounded up, spread evenly over its names in order,
# none of TUNED), fixed here so that adding a task never moves another between the parts. The repository family
# holds out more: a third of its first 17 tasks, and the 6 added on 29 Nov 2026 (cachetools … xmltodict), written by
# someone who had not seen agent-server's fix trials and kept from its engineer until they had been run. Nobody tunes agent-server
# (prompts, recoveries, the reading of answers) on these; they are run to check that what was tuned on the rest
# holds (`--split heldout`).
# fmt: off
HELD_OUT: dict[str, tuple[str, ...]] = {
    "exercise": (
        "acronym", "atbash-cipher", "collatz-conjecture", "diamond", "eliuds-eggs", "flatten-array", "house",
        "line-up", "matching-brackets", "perfect-numbers", "prime-factors", "queen-attack", "resistor-color-duo",
        "rna-transcription", "roman-numerals", "say", "secret-handshake", "square-root", "sum-of-multiples",
        "twelve-days",
    ),
    "hard": (
        "all-your-base", "bottle-song", "change", "complex-numbers", "custom-set", "food-chain", "go-counting",
        "hangman", "kindergarten-garden", "ledger", "meetup", "pascals-triangle", "rail-fence-cipher",
        "relative-distance", "scale-generator", "simple-linked-list", "swift-scheduling", "variable-length-quantity",
    ),
    "workspace": (
        "cart", "dates", "matrix", "slug",
    ),
    "repo": (
        "boltons-bytes2human", "boltons-first-default", "boltons-rstrip", "inflection-underscore",
        "tabulate-multiline-width", "toolz-take-nth", "cachetools-lfu", "isodate-duration-sub",
        "moreitertools-running-mean", "pathspec-gitignore-pattern", "webcolors-legacy-color",
        "xmltodict-unparse-pretty",
    ),
}
# fmt: on


@dataclass
class Task:
    name: str
    kind: str  # "exercise" | "workspace"
    source: Path
    request: str
    test_command: list[str]
    files: list[str] = field(default_factory=list)  # what a whole-file system shows the model (workspace-relative)
    target: str | None = None  # the file an exercise's answer goes to
    family: str = ""  # exercise | hard | workspace | repo (default: the kind)
    python: Path | None = None  # the interpreter its tests run with (None: the benchmark's own)
    env: dict[str, str] = field(default_factory=dict)  # for its tests (a library's PYTHONPATH)
    tests: list[str] = field(default_factory=list)  # repo: the library's test files
    failing: list[str] = field(default_factory=list)  # repo: the test ids the request names
    baseline_passed: int | None = None  # tests passing before the turn (repo: with the bug planted)
    clean_passed: int | None = None  # repo: tests passing in the library as published (all of them must pass again)
    timeout_s: float = 120.0  # for one run of its tests

    def __post_init__(self) -> None:
        self.family = self.family or self.kind

    @property
    def held_out(self) -> bool:
        return self.name in HELD_OUT.get(self.family, ())

    def test_files(self) -> list[str]:
        """The task's own tests (workspace-relative): what decides a pass, so no system may change them."""
        if self.kind == "exercise":
            return [f for f in self.files if f != self.target]
        if self.kind == "repo":
            return list(self.tests)
        return sorted(str(p.relative_to(self.source)) for p in (self.source / "tests").rglob("*.py"))

    def materialize(self, dest: Path) -> Path:
        shutil.copytree(self.source, dest, ignore=shutil.ignore_patterns("task.json", "instructions.md"))
        return dest


def exercise(path: Path) -> Task:
    meta = json.loads((path / "task.json").read_text())
    family = "hard" if int(meta.get("difficulty", 1)) >= 3 else "exercise"
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
        family=family,
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
    out += [Task(**fields) for fields in built_repo_tasks()]
    return out


def select(
    names: list[str] | None, limit: int | None = None, kinds: set[str] | None = None, split: str = "all"
) -> list[Task]:
    """The tasks to run: by name, family (`--kinds exercise,hard,workspace,repo`) and split (`tune`: what tuning
    may look at, `heldout`: what it never does, `all`)."""
    tasks = all_tasks()
    if names:
        by_name = {t.name: t for t in tasks}
        missing = [n for n in names if n not in by_name]
        if missing:
            hint = " (repository tasks are built first: tests/benchmarks/scorecard/build_repo_tasks.py)"
            raise SystemExit(f"unknown tasks: {', '.join(missing)}{hint}")
        tasks = [by_name[n] for n in names]
    if kinds:
        tasks = [t for t in tasks if t.family in kinds]
        if "repo" in kinds and not any(t.kind == "repo" for t in tasks):
            raise SystemExit("no repository tasks are built: run tests/benchmarks/scorecard/build_repo_tasks.py")
    if split != "all":
        tasks = [t for t in tasks if t.held_out == (split == "heldout")]
    return tasks[:limit] if limit else tasks
