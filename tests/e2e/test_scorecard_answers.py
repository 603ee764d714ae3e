"""Real answers from the scorecard, replayed: what Qwen2.5-Coder-0.5B wrote when it was handed the files and asked
for the new one (tests/fixtures/scorecard_answers.json, kept by tests/fakes/record_scorecard_answers.py from a run's
failures). Through the fake LLM and the real server in `files` format, each answer's code must land in the file it
was meant for, exactly as written, after one approval, and no other file may change: when such a task fails, the
model's code was wrong, never the harness that applied it. An answer whose code does not parse is the exception
(issue 37, "do no harm"): it is refused before anyone is asked, and the model reads the parser's error."""

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


async def replay(
    start_server: Start, tmp_path: Path, fake_llm: FakeLLMServer, task: Task, answer: str
) -> tuple[dict[str, str], dict[str, str], list[dict[str, Any]]]:
    """The task's workspace before and after the real server, in `files` format, took `answer` as the model's reply
    (approvals allowed), and the permission requests it made."""
    ws = task.materialize(tmp_path / "ws")
    before = snapshot(ws)
    fake_llm.script(Reply.text(answer), Reply.text("Done."))
    # (No one-line fix trials: the recorded answer is the reply to the turn's first request, which they would take.)
    agent = {"editFormat": "files", "fixTrials": 0}
    client = await start_server(ws, {**llm_options(fake_llm), "agent": agent})
    asked = answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, ws)
    assert await prompt(client, sid, task.request) == "end_turn"
    return before, snapshot(ws), asked


def test_the_fixture_holds_real_answers_of_both_systems() -> None:
    assert len(ANSWERS) >= 8
    assert {a["system"] for a in ANSWERS} == {"agent-server", "whole file"}


@pytest.mark.parametrize("answer", ANSWERS, ids=[f"{a['task']}-{a['system'].replace(' ', '_')}" for a in ANSWERS])
async def test_a_recorded_answer_lands_in_its_file_as_written(
    start_server: Start, tmp_path: Path, fake_llm: FakeLLMServer, answer: dict[str, Any]
) -> None:
    [task] = select([answer["task"]])
    path, code = meant_for(answer["answer"], task)
    before, after, asked = await replay(start_server, tmp_path, fake_llm, task, answer["answer"])
    try:
        compile(code, path, "exec")
    except SyntaxError:
        assert after == before and asked == []
        told = fake_llm.chat_requests()[1].json["messages"]
        assert any(f"{path} would no longer parse as Python (line" in str(m["content"]) for m in told), told
        return
    assert after[path].rstrip("\n") == code.rstrip("\n")
    assert {k: v for k, v in after.items() if k != path} == {k: v for k, v in before.items() if k != path}
    if before.get(path, "").rstrip() == code.rstrip():
        # The file sent back as it was: nothing to approve, and the model is told nothing changed.
        assert asked == []
        told = fake_llm.chat_requests()[1].json["messages"]
        assert any("already has exactly this content" in str(m["content"]) for m in told)
    else:
        # One approval for the write (the test command the request names, run after it, asks too: not counted).
        writes = [a["toolCall"]["rawInput"]["path"] for a in asked if "path" in a["toolCall"]["rawInput"]]
        assert writes == [path]


WORKSPACE_ANSWERS: list[dict[str, str]] = json.loads(FIXTURE.read_text())["workspace_answers_without_a_path"]
# What each kind of real pathless answer does to the workspace: (file written, text it must hold), UNCHANGED (its
# code is what the file already has: refused before any approval, and the model told), or None (written nowhere).
UNCHANGED: tuple[str, list[str]] = ("", [])
PLACED: dict[str, tuple[str, list[str]] | None] = {
    # describe() alone, as it already was: placed in cal/format.py by its name, merged (the import kept): unchanged.
    "dates-agent-server": UNCHANGED,
    # transpose() alone, as it already was: placed and merged into mat/ops.py (shape() kept): unchanged.
    "matrix-agent-server": UNCHANGED,
    # words() without WORD, a new import: merged into stats/words.py, WORD kept.
    "wordfreq-agent-server": ("stats/words.py", ["WORD = re.compile(", "from collections import Counter"]),
    # The test file echoed back under a comment naming no file: written nowhere.
    "slug-agent-server": None,
    # `# shop/__init__.py ... # shop/cart.py` in one block: split into the two files; cart.py came back as it was (one
    # blank line fewer), so it is dropped as an echo; the new import in the empty __init__.py is written.
    "cart-whole_file": ("shop/__init__.py", ["from .cart import Cart"]),
}


@pytest.mark.parametrize("key", sorted(PLACED))
async def test_a_real_answer_without_a_path_lands_where_its_code_belongs(
    start_server: Start, tmp_path: Path, fake_llm: FakeLLMServer, key: str
) -> None:
    [answer] = [a for a in WORKSPACE_ANSWERS if f"{a['task']}-{a['system'].replace(' ', '_')}" == key]
    [task] = select([answer["task"]])
    before, after, asked = await replay(start_server, tmp_path, fake_llm, task, answer["answer"])
    assert all(after[name] == text for name, text in before.items() if name.startswith("tests/"))
    expected = PLACED[key]
    if expected is None:
        assert after == before and asked == []
        return
    if expected is UNCHANGED:
        assert after == before and asked == []
        told = fake_llm.chat_requests()[1].json["messages"]
        assert any("already has exactly this content" in str(m["content"]) for m in told)
        return
    path, holds = expected
    assert path in {a["toolCall"]["rawInput"]["path"] for a in asked}
    assert {k for k in after if after[k] != before.get(k)} == {path}
    assert all(piece in after[path] for piece in holds), after[path]
    compile(after[path], path, "exec")  # the merged file is still Python
