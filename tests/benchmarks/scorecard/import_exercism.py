"""Rebuild the scorecard's exercises from a clone of exercism/python (MIT; see exercises/SOURCE.md).

    python tests/benchmarks/scorecard/import_exercism.py <path of an exercism/python git dir> [--commit C]
        [--max-difficulty 5]

Difficulty 1-2 is the `exercise` family, 3-5 the `hard` one (each exercise's task.json records its difficulty).
Keeps only task data: each practice exercise's instructions, its stub and its tests. The reference solution is
used once, here, to check that the tests run and pass in this environment; it is never written out.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "exercises"
MAX_DIFFICULTY = 5  # 1-2: the first 59 exercises; 3-5: the harder family (issue 37)
SKIP = {"hello-world"}  # nothing to solve
# A task's name is its identity in a run (--tasks, --merge, the held-out list): an exercise named like a workspace
# task is left out.
SKIP |= {p.name for p in (HERE / "workspaces").iterdir() if p.is_dir()}


def git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=True).stdout


def show(git_dir: Path, commit: str, path: str) -> str | None:
    done = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("git_dir", type=Path)
    ap.add_argument("--commit", default="HEAD")
    ap.add_argument("--max-difficulty", type=int, default=MAX_DIFFICULTY)
    args = ap.parse_args()
    git_dir = args.git_dir / ".git" if (args.git_dir / ".git").exists() else args.git_dir
    commit = git(git_dir, "rev-parse", args.commit).strip()
    track = json.loads(show(git_dir, commit, "config.json") or "{}")
    slugs = [
        e["slug"]
        for e in track["exercises"]["practice"]
        if e.get("status", "active") == "active" and e["difficulty"] <= args.max_difficulty and e["slug"] not in SKIP
    ]
    difficulty = {e["slug"]: int(e["difficulty"]) for e in track["exercises"]["practice"]}
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    kept: list[str] = []
    for slug in slugs:
        base = f"exercises/practice/{slug}"
        meta = json.loads(show(git_dir, commit, f"{base}/.meta/config.json") or "{}")
        files = meta.get("files", {})
        if len(files.get("solution", [])) != 1 or len(files.get("test", [])) != 1:
            continue
        stub_name, test_name = files["solution"][0], files["test"][0]
        instructions = show(git_dir, commit, f"{base}/.docs/instructions.md") or ""
        extra = show(git_dir, commit, f"{base}/.docs/instructions.append.md")
        stub = show(git_dir, commit, f"{base}/{stub_name}")
        tests = show(git_dir, commit, f"{base}/{test_name}")
        example = show(git_dir, commit, f"{base}/{files['example'][0]}") if files.get("example") else None
        if stub is None or tests is None or example is None:
            continue
        with tempfile.TemporaryDirectory() as tmp:  # the tests must pass with the reference solution here
            Path(tmp, stub_name).write_text(example)
            Path(tmp, test_name).write_text(tests)
            run = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", test_name],
                cwd=tmp,
                capture_output=True,
                timeout=300,
            )
            if run.returncode != 0:
                print(f"skip {slug}: its tests do not pass with the reference solution here", file=sys.stderr)
                continue
        dest = OUT / slug
        dest.mkdir()
        (dest / "instructions.md").write_text(instructions + ("\n" + extra if extra else ""))
        (dest / stub_name).write_text(stub)
        (dest / test_name).write_text(tests)
        (dest / "task.json").write_text(
            json.dumps(
                {
                    "solution": stub_name,
                    "test": test_name,
                    "blurb": meta.get("blurb", ""),
                    "difficulty": difficulty[slug],
                },
                indent=2,
            )
            + "\n"
        )
        kept.append(slug)
    (OUT / "LICENSE.exercism").write_text(show(git_dir, commit, "LICENSE") or "")
    (OUT / "SOURCE.md").write_text(
        "# Source of these exercises\n\n"
        f"The practice exercises of difficulty <= {args.max_difficulty} of Exercism's Python track, "
        f"github.com/exercism/python at commit `{commit}`, MIT licence (LICENSE.exercism beside this file).\n"
        "Only task data is kept: `instructions.md` (the exercise's instructions, plus its append file when it has "
        "one), the stub the student starts from, and the tests. Rebuilt with `import_exercism.py`.\n\n"
        "Difficulty 1-2 is the scorecard's `exercise` family, 3-5 its `hard` family (`difficulty` in each "
        "task.json).\n\n"
        f"{len(kept)} exercises: {', '.join(kept)}.\n"
    )
    print(f"{len(kept)} exercises written to {OUT}")


if __name__ == "__main__":
    main()
