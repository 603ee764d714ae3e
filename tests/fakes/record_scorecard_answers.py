"""Keep real answers of a scorecard run as fixtures: what Qwen2.5-Coder-0.5B wrote when asked for files.

    python tests/fakes/record_scorecard_answers.py FIXTURES_DIR [FIXTURES_DIR ...]

reads the failed exchanges `bench_scorecard.py --fixtures DIR` kept (a failure is data: the model's code was wrong,
or the harness lost it) and writes `tests/fixtures/scorecard_answers.json`: per task and system, the first answer
in the files format with one code block (agent-server as shipped and the whole-file baseline, with or without
a path line before it). `tests/e2e/test_scorecard_answers.py` replays each through the fake LLM and the real server: every answer's
code must land in the file it was meant for, exactly as written, and nowhere else.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "scorecard_answers.json"
SYSTEMS = ("agent-server", "whole file")


def first_answer(record: dict[str, Any]) -> str | None:
    for message in record.get("transcript", []):
        if message["role"] == "assistant" and "```" in (message.get("content") or ""):
            return str(message["content"])
    return None


def main(dirs: list[str]) -> None:
    answers: dict[tuple[str, str], dict[str, str]] = {}
    for folder in dirs:
        for path in sorted(Path(folder).glob("*.json")):
            record = json.loads(path.read_text())
            if record["system"] not in SYSTEMS or record.get("transcript") is None:
                continue
            answer = first_answer(record)
            if answer and answer.count("```") == 2:  # one block: where its code belongs is never in doubt
                answers[(record["task"], record["system"])] = {
                    "task": record["task"],
                    "system": record["system"],
                    "answer": answer,
                }
    OUT.write_text(json.dumps({"model": "qwen2.5-coder-0.5b-instruct-q4_k_m", "answers": list(answers.values())},
                              indent=1) + "\n")  # fmt: skip
    print(f"{len(answers)} answers -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
