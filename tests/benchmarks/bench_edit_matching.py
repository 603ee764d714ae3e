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
    return ("recovered" if first <= target <= last else "WRONG place"), found.how


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("fixtures", nargs="*", type=Path, default=[DEFAULT])
    args = parser.parse_args()
    calls = [c for path in args.fixtures for c in json.loads(path.read_text())["calls"]]
    exact = [c for c in calls if c["exact"]]
    failed = [c for c in calls if not c["exact"]]
    outcomes = Counter()
    hows = Counter()
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


if __name__ == "__main__":
    main()
