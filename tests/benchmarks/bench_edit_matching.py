"""The forgiving edit matcher on real failed edit_file calls of a small model.

Run: python tests/benchmarks/bench_edit_matching.py [FIXTURE.json ...]
(default: tests/fixtures/edit_calls.json, recorded by tests/fakes/record_failed_edits.py with Qwen2.5-Coder-0.5B)

For every recorded call whose old_text does not occur exactly once in its file (a failed edit before this change),
it reports whether the matcher now lands it at the intended line (recovered), somewhere else (WRONG place: the
number that must stay 0), or refuses (an error showing the closest lines). The baseline, measured in the same run,
is exact matching alone: it recovers none of them by definition, and its wrong-place count is checked on the calls
that did match exactly.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

from agent_server.errors import ToolError
from agent_server.tools.edit_matching import find_match

DEFAULT = Path(__file__).resolve().parents[1] / "fixtures" / "edit_calls.json"


def judge(call: dict[str, object]) -> tuple[str, str]:
    text, old, new = str(call["text"]), str(call["old_text"]), str(call["new_text"])
    target = int(str(call["target_line"]))
    try:
        found = find_match(text, old.replace("\r\n", "\n"), new.replace("\r\n", "\n"), "file")
    except ToolError as exc:
        return "refused", str(exc).split(".")[0]
    first = text.count("\n", 0, found.start) + 1
    last = text.count("\n", 0, found.end) + 1
    if "target_last" in call:  # a synthetic window: the match must stay inside it
        right = target <= first and last <= int(str(call["target_last"]))
    else:  # a recorded task: the match must cover the line the task named
        right = first <= target <= last
    return ("recovered" if right else "WRONG place"), found.how


PERTURBATIONS = ("dedent", "two_space", "trailing", "quotes", "typo", "numbered")


def perturb(rng: random.Random, lines: list[str], first: int, count: int, kind: str) -> str:
    """old_text for lines[first:first+count] with one mistake of the kind small models make."""
    window = lines[first : first + count]
    if kind == "dedent":
        return "\n".join(line.strip() for line in window)
    if kind == "two_space":
        return "\n".join(" " * ((len(line) - len(line.lstrip())) // 2) + line.lstrip() for line in window)
    if kind == "trailing":
        return "\n".join(line + "  " for line in window)
    if kind == "quotes":
        return "\n".join(window).translate(str.maketrans({"'": '"', '"': "'"}))
    if kind == "numbered":
        return "\n".join(f"{first + i + 1}\t{line}" for i, line in enumerate(window))
    text = list("\n".join(window))  # typo: a few characters changed
    letters = [i for i, c in enumerate(text) if c.isalpha()]
    for i in rng.sample(letters, min(len(letters), rng.randint(1, 3))):
        text[i] = rng.choice("abcdefghijklmnopqrstuvwxyz")
    return "".join(text)


def synthetic(count: int, seed: int) -> list[dict[str, object]]:
    """Perturbed copies of windows of this repository's own files, each with the line it must land on."""
    rng = random.Random(seed)
    root = Path(__file__).resolve().parents[2] / "agent_server"
    files = sorted(p for p in root.rglob("*.py") if p.stat().st_size > 3000)
    out: list[dict[str, object]] = []
    while len(out) < count:
        path = rng.choice(files)
        lines = path.read_text().split("\n")
        n = rng.randint(1, 4)
        first = rng.randrange(0, max(1, len(lines) - n))
        if sum(len(line.strip()) for line in lines[first : first + n]) < 20:
            continue
        kind = PERTURBATIONS[len(out) % len(PERTURBATIONS)]
        old = perturb(rng, lines, first, n, kind)
        text = "\n".join(lines)
        out.append({"text": text, "old_text": old, "new_text": old + "  # x", "target_line": first + 1,
                    "target_last": first + n, "exact": text.count(old) == 1, "kind": kind})  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("fixtures", nargs="*", type=Path, default=[DEFAULT])
    parser.add_argument("--synthetic", type=int, default=0, help="also N perturbed windows of this repo's files")
    parser.add_argument("--quick", action="store_true", help="the recorded calls and 20 synthetic windows (CI)")
    args = parser.parse_args()
    if args.quick:
        args.synthetic = 20
    if args.synthetic:
        report_synthetic(synthetic(args.synthetic, 28))
    calls = [c for path in args.fixtures for c in json.loads(path.read_text())["calls"]]
    exact = [c for c in calls if c["exact"]]
    failed = [c for c in calls if not c["exact"]]
    outcomes: Counter[str] = Counter()
    hows: Counter[str] = Counter()
    for call in failed:
        outcome, how = judge(call)
        outcomes[outcome] += 1
        hows[f"{outcome}: {how}"] += 1
    exact_wrong = sum(1 for c in exact if judge(c)[0] == "WRONG place")
    share = outcomes["recovered"] / len(failed) if failed else 0.0
    print(
        f"calls recorded: {len(calls)}; matched exactly before: {len(exact)} ({exact_wrong} of them at the wrong line)"
    )
    print(f"failed before (old_text not found exactly once): {len(failed)}")
    print(f"  baseline (exact only): recovered 0/{len(failed)}")
    print(f"  forgiving matcher:     recovered {outcomes['recovered']}/{len(failed)} ({share:.0%}), "
          f"wrong place {outcomes['WRONG place']}, refused {outcomes['refused']}")  # fmt: skip
    for key, count in sorted(hows.items()):
        print(f"    {count:3d}  {key}")


def report_synthetic(calls: list[dict[str, object]]) -> None:
    by_kind: dict[str, Counter[str]] = {}
    for call in calls:
        if call["exact"]:
            continue
        by_kind.setdefault(str(call["kind"]), Counter())[judge(call)[0]] += 1
    print("synthetic near misses (this repo's files, one mistake each):")
    for kind, outcomes in sorted(by_kind.items()):
        total = sum(outcomes.values())
        print(f"  {kind:10s} recovered {outcomes['recovered']}/{total}, wrong place {outcomes['WRONG place']}, "
              f"refused {outcomes['refused']}")  # fmt: skip


if __name__ == "__main__":
    main()
