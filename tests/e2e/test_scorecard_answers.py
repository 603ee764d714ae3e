"""Real answers from the scorecard, replayed: what Qwen2.5-Coder-0.5B wrote when it was handed the files and asked
for the new one (tests/fixtures/scorecard_answers.json, kept by tests/fakes/record_scorecard_answers.py from a run's
failures). Through the fake LLM and the real server in `files` format, each answer's code must land in the file it
was meant for, exactly as written, after one approval, and no other file may change: when such a task fails, the
model's code was wrong, never the harness that applied it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.benchmarks.scorecard.tasks import Task, select
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import answer_permissions, install_apply_edit, prompt
from tests.fakes.fake_llm import FakeLLMServer, Reply

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "scorecard_answers.json"
ANSWERS: list[dict[str, str]] = json.loads(FIXTURE.read_text())["answers"]
BLOCK = re.compile(r"```[^\n]*\n(?P<code>.*?)^[ \t]*```", re.S | re.M)
PATH = re.compile(r"[`*#_\s]*(?:file(?:name)?:\s*)?(?P<path>[\w./-]+\.py)[`*_:\s]*$", re.I)


def meant_for(answer: str, task: Task) -> tuple[str, str]:
    """(file, code) the answer's one block is for: the path on the line before it, else the exercise's target."""
    block = BLOCK.search(answer)
    assert block is not None, answer
    before = answer[: block.start()].rstrip("\n").rsplit("\n", 1)[-1]
    named = PATH.fullmatch(before)
    path = named.group("path") if named else task.target
    assert path is not None, f"{task.name}: no file named and no single target"
    return path, block.group("code")


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in root.rglob("*.py") if "__pycache__" not in p.parts}


def test_the_fixture_holds_real_answers_of_both_systems() -> None:
    assert len(ANSWERS) >= 8
    assert {a["system"] for a in ANSWERS} == {"agent-server", "whole file"}


@pytest.mark.parametrize("answer", ANSWERS, ids=[f"{a['task']}-{a['system'].replace(' ', '_')}" for a in ANSWERS])
async def test_a_recorded_answer_lands_in_its_file_as_written(
    start_server: Start, tmp_path: Path, fake_llm: FakeLLMServer, answer: dict[str, Any]
) -> None:
    [task] = select([answer["task"]])
    ws = task.materialize(tmp_path / "ws")
    before = snapshot(ws)
    path, code = meant_for(answer["answer"], task)
    fake_llm.script(Reply.text(answer["answer"]), Reply.text("Done."))
    client = await start_server(ws, {**llm_options(fake_llm), "agent": {"editFormat": "files"}})
    asked = answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, ws)
    assert await prompt(client, sid, task.request) == "end_turn"
    after = snapshot(ws)
    assert after[path].rstrip("\n") == code.rstrip("\n")
    assert {k: v for k, v in after.items() if k != path} == {k: v for k, v in before.items() if k != path}
    assert [a["toolCall"]["rawInput"]["path"] for a in asked] == [path]
