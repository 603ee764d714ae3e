"""Repository tasks: a realistic one-line bug planted in a module of a real, published Python library (a pinned sdist
from PyPI with its own test suite). The request names the failing test and shows its output, never the file.

The specs are `repo_tasks.json` beside this file (committed); `build_repo_tasks.py` downloads the sdists, plants
the bugs and records each task's baseline into the benchmark's cache, where this module reads them:

    <cache>/repo-tasks/<task>/task.json    the built task (request, failing tests, baseline, test files)
    <cache>/repo-tasks/<task>/workspace/   the library with the bug planted (copied for every attempt)
    <cache>/repo-tasks/venv/               the Python its tests run with: pytest only, no library installed

Passing means the whole suite passes: the named tests now, and every test that passed before the bug was planted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .peer_install import bench_cache

SPECS = Path(__file__).resolve().parent / "repo_tasks.json"
DEFINING = ("library", "file", "old", "new", "failing")  # what makes a built task the spec's


def repo_root() -> Path:
    return bench_cache() / "repo-tasks"


def venv_python() -> Path:
    return repo_root() / "venv" / "bin" / "python"


def load_specs() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SPECS.read_text())
    return data


def built_repo_tasks() -> list[dict[str, Any]]:
    """The Task fields of every built repository task whose spec is still the committed one."""
    root = repo_root()
    if not root.is_dir():
        return []
    out = []
    for spec in load_specs()["tasks"]:
        meta_path = root / spec["name"] / "task.json"
        if not meta_path.is_file():
            continue
        meta = json.loads(meta_path.read_text())
        built = meta.get("spec") or {}
        if any(built.get(k) != spec[k] for k in DEFINING):  # changed since it was built: rebuild, never run stale
            continue
        out.append(
            {
                "name": spec["name"],
                "kind": "repo",
                "family": "repo",
                "source": root / spec["name"] / "workspace",
                "request": meta["request"],
                "test_command": meta["test_command"],
                "files": [],  # a user reporting a failing test shows no file: finding it is the task
                "python": venv_python(),
                "env": {"PYTHONPATH": meta["pythonpath"]},
                "tests": meta["tests"],
                "failing": meta["failing"],
                "baseline_passed": meta["baseline_passed"],
                "clean_passed": meta["clean_passed"],
                "timeout_s": 300.0,
            }
        )
    return out
