"""Build the scorecard's repository tasks from `repo_tasks.json` into the benchmark's cache (see repo_tasks.py).

    python tests/benchmarks/scorecard/build_repo_tasks.py [--only NAME,...] [--check]

For each library: its pinned sdist from PyPI (`pip download --no-deps --no-binary NAME NAME==VERSION`), unpacked;
its suite run once as published (every test must pass or be skipped: a suite that fails here is no baseline).
For each task: the library copied, the spec's exact old line replaced by its new line (the old line must occur
exactly once in the file), the named tests run to capture the output the request shows (they must fail, and the
output must not name the planted file), then the whole suite run for the baseline (which tests pass before the
turn). Other tests may fail too, as with a real bug: the request names the one or two a user would report. `--check` builds into a temporary cache and reports, changing nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.scorecard.repo_tasks import load_specs, repo_root, venv_python  # noqa: E402

PYTEST = "pytest==9.0.3"  # the project's own pin (pyproject.toml): the library suites run with pytest only
SUMMARY = re.compile(r"^(FAILED|ERROR) (\S+)", re.M)
PASSED = re.compile(r"(\d+) passed")
OUTPUT_CHARS = 3000  # of the failing tests' output shown in the request


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 600) -> tuple[int, str]:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    return done.returncode, done.stdout + done.stderr


def ensure_venv() -> Path:
    python = venv_python()
    if not python.is_file():
        base = getattr(sys, "_base_executable", sys.executable)
        code, out = run([base, "-m", "venv", str(python.parent.parent)], ROOT)
        if code != 0:
            raise SystemExit(f"cannot make the tasks' virtualenv: {out[-2000:]}")
        code, out = run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", PYTEST], ROOT)
        if code != 0:
            raise SystemExit(f"cannot install {PYTEST} into the tasks' virtualenv: {out[-2000:]}")
    return python


def fetch_sdist(package: str, version: str, into: Path) -> Path:
    """The library's source tree as published, unpacked once into the cache."""
    tree = into / f"{package}-{version}"
    if (tree / ".unpacked").is_file():
        return tree
    downloads = into / "sdists"
    downloads.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", package]
    code, out = run([*pip, f"{package}=={version}", "-d", str(downloads)], ROOT)
    if code != 0:
        raise SystemExit(f"pip download {package}=={version} failed:\n{out[-2000:]}")
    stem = "[-_.]".join(re.escape(part) for part in re.split(r"[-_.]+", package))
    archives = [
        p for p in downloads.glob("*.tar.gz") if re.match(rf"(?i){stem}-{re.escape(version)}\.tar\.gz$", p.name)
    ]
    if not archives:
        raise SystemExit(f"no sdist of {package}=={version} in {downloads}")
    shutil.rmtree(tree, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(archives[0]) as tar:
        tar.extractall(tmp, filter="data")
        [top] = list(Path(tmp).iterdir())
        shutil.copytree(top, tree)
    (tree / ".unpacked").write_text(archives[0].name + "\n")
    return tree


def suite_command(lib: dict[str, Any]) -> list[str]:
    ignores = [arg for path in lib.get("ignore", []) for arg in ("--ignore", path)]
    return ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE", *ignores, *lib["tests"]]


def run_suite(python: Path, cwd: Path, argv: list[str], pythonpath: str) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "PYTHON"))}
    env |= {"PYTHONPATH": pythonpath, "PYTHONDONTWRITEBYTECODE": "1"}
    return run([str(python) if a == "python" else a for a in argv], cwd, env)


def passed_count(output: str) -> int:
    match = PASSED.search(output.strip().splitlines()[-1] if output.strip() else "")
    return int(match.group(1)) if match else 0


def test_files(tree: Path, lib: dict[str, Any]) -> list[str]:
    """The library's test files (and conftest.py files): put back before every judgement."""
    out = []
    for top in lib["tests"]:
        base = tree / top
        found = [base] if base.is_file() else sorted(base.rglob("*.py"))
        out += [str(p.relative_to(tree)) for p in found if "__pycache__" not in p.parts]
    return out


def plant(tree: Path, task: dict[str, Any]) -> int:
    """Replace the spec's old line with its new one; returns the module's length in lines."""
    path = tree / task["file"]
    lines = path.read_text().splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if line.rstrip("\n") == task["old"]]
    if len(hits) != 1:
        raise ValueError(f"{task['name']}: the old line occurs {len(hits)} times in {task['file']}")
    lines[hits[0]] = task["new"] + "\n"
    path.write_text("".join(lines))
    return len(lines)


def request(task: dict[str, Any], output: str) -> str:
    ids = " ".join(task["failing"])
    these = "this test passes" if len(task["failing"]) == 1 else "these tests pass"
    return (
        f"Running `python -m pytest -q {ids}` in this repository fails:\n\n```\n{output[-OUTPUT_CHARS:].strip()}\n```\n\n"
        f"Find the bug in the library and fix it so that {these}, without breaking the rest of its test suite. "
        "Do not change the tests."
    )


def build_task(task: dict[str, Any], lib: dict[str, Any], clean: Path, clean_passed: int, out: Path) -> dict[str, Any]:
    python = venv_python()
    work = out / task["name"]
    shutil.rmtree(work, ignore_errors=True)
    ws = work / "workspace"
    shutil.copytree(clean, ws, ignore=shutil.ignore_patterns(".unpacked", "__pycache__"))
    lines = plant(ws, task)
    if task.get("module_lines") not in (None, lines):
        raise ValueError(
            f"{task['name']}: the spec says {task['file']} has {task['module_lines']} lines, it has {lines}"
        )
    argv = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=short", *task["failing"]]
    code, output = run_suite(python, ws, argv, lib["pythonpath"])
    if code == 0:
        raise ValueError(f"{task['name']}: the named tests still pass with the bug planted")
    named = re.compile(r"(?:^|[\s/\"'(])" + re.escape(Path(task["file"]).name), re.M)
    if task["file"] in output or (Path(task["file"]).name != "__init__.py" and named.search(output)):
        raise ValueError(f"{task['name']}: the failing output names the planted file {task['file']}")
    code, suite_out = run_suite(python, ws, suite_command(lib), lib["pythonpath"])
    failed = SUMMARY.findall(suite_out)
    passing = [f for f in task["failing"] if not any(node.startswith(f) for _, node in failed)]
    if passing:
        raise ValueError(f"{task['name']}: the request names tests that pass with the bug: {passing}")
    meta = {
        "spec": task,
        "library": f"{lib['package']}=={lib['version']}",
        "module_lines": lines,
        "request": request(task, output),
        "test_command": suite_command(lib),
        "pythonpath": lib["pythonpath"],
        "tests": test_files(ws, lib),
        "failing": task["failing"],
        "failing_files": sorted({f.split("::")[0] for f in task["failing"]}),
        "baseline_passed": passed_count(suite_out),
        "baseline_failed": [node for _, node in failed],
        "clean_passed": clean_passed,
    }
    (work / "task.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default=None, help="comma-separated task names")
    ap.add_argument("--check", action="store_true", help="build into a temporary folder, report, keep nothing")
    args = ap.parse_args()
    specs = load_specs()
    wanted = set(args.only.split(",")) if args.only else None
    tasks = [t for t in specs["tasks"] if wanted is None or t["name"] in wanted]
    out = Path(tempfile.mkdtemp(prefix="repo-tasks-")) if args.check else repo_root()
    out.mkdir(parents=True, exist_ok=True)
    python = ensure_venv()
    failures = 0
    for name in sorted({t["library"] for t in tasks}):
        lib = specs["libraries"][name]
        clean = fetch_sdist(lib["package"], lib["version"], repo_root() / "_src")
        code, suite_out = run_suite(python, clean, suite_command(lib), lib["pythonpath"])
        if code != 0:
            print(f"{name}: its suite fails as published; no tasks from it\n{suite_out[-1500:]}", file=sys.stderr)
            failures += 1
            continue
        clean_passed = passed_count(suite_out)
        for task in (t for t in tasks if t["library"] == name):
            try:
                meta = build_task(task, lib, clean, clean_passed, out)
            except (ValueError, OSError, subprocess.TimeoutExpired) as exc:
                print(f"FAILED {exc}", file=sys.stderr)
                failures += 1
                continue
            print(f"built {task['name']:<28} {meta['library']:<24} {task['file']} ({meta['module_lines']} lines), "
                  f"{len(meta['baseline_failed'])} failing, {meta['baseline_passed']}/{clean_passed} passing")  # fmt: skip
    if args.check:
        shutil.rmtree(out, ignore_errors=True)
    if failures:
        raise SystemExit(f"{failures} task(s) or libraries could not be built")


if __name__ == "__main__":
    main()
