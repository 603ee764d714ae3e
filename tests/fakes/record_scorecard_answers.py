"""Keep real answers of a scorecard run as fixtures: what Qwen2.5-Coder-0.5B wrote when asked for files.

    python tests/fakes/record_scorecard_answers.py FIXTURES_DIR [FIXTURES_DIR ...]

reads the failed exchanges `bench_scorecard.py --fixtures DIR` kept (a failure is data: the model's code was wrong,
or the harness lost it) and writes `tests/fixtures/scorecard_answers.json`: per task and system, the first answer
in the files format with one code block (agent-server as shipped and the whole-file baseline): a spread of at most
12 exercise answers to replay, and every workspace answer without a path (data for placing such answers). `tests/e2e/test_scorecard_answers.py` replays each through the fake LLM and the real server: every answer's
code must land in the file it was meant for, exactly as written, and nowhere else.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "scorecard_answers.json"
WORKSPACE = ROOT / "tests" / "benchmarks" / "scorecard" / "workspaces"
SYSTEMS = ("agent-server", "whole file")


def first_answer(record: dict[str, Any]) -> str | None:
    for message in record.get("transcript", []):
        if message["role"] == "assistant" and "```" in (message.get("content") or ""):
            return str(message["content"])
    return None


def main(dirs: list[str], most: int = 12) -> None:
    placed: list[dict[str, str]] = []
    unplaced: list[dict[str, str]] = []
    for folder in dirs:
        for path in sorted(Path(folder).glob("*.json")):
            record = json.loads(path.read_text())
            answer = first_answer(record) if record["system"] in SYSTEMS else None
            if answer is None or answer.count("```") != 2:  # one block only: where it belongs is never in doubt
                continue
            entry = {"task": record["task"], "system": record["system"], "answer": answer}
            # An exercise has one file to write; a workspace answer without a path names none of its files: where
            # it belongs is a guess (agent-server places it only when one editable file was shown), so it is kept
            # as data for that work, not replayed.
            (placed if not WORKSPACE.joinpath(record["task"]).is_dir()
             else unplaced).append(entry)  # fmt: skip
    step = max(1, len(placed) // most)  # spread over the alphabet and both systems, a fixture CI can replay
    kept = placed[::step][:most]
    OUT.write_text(json.dumps({"model": "qwen2.5-coder-0.5b-instruct-q4_k_m", "answers": kept,
                               "workspace_answers_without_a_path": unplaced}, indent=1) + "\n")  # fmt: skip
    print(
        f"{len(kept)} of {len(placed)} exercise answers, {len(unplaced)} workspace answers without a path -> {OUT.relative_to(ROOT)}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
