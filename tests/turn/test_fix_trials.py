"""One-line fixes tried against the tests (turn/fix_trials.py, the FixTrials guard, the trial driver and the overlay in
turn/pytest_trace/): before the first answer to "running `pytest t.py::test_x` fails", each line the failing test ran
is rewritten by the model, the rewrites are tried by real pytest runs without touching the workspace, and the first
that makes the named test pass, breaking no other test, is written through write_file and ends the turn.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent_server import acp
from agent_server.llm.scripted import ScriptedProvider
from agent_server.turn.failure_path import Call
from agent_server.turn.fix_trials import (
    Unit,
    candidates,
    failure_excerpt,
    files_command,
    trial_command,
    units,
    winner,
)
from tests.turn.inprocess import RecordingClient, python_package, run, scripted_service

CALC = '''def clamp(x, lo, hi):
    """x limited to lo..hi."""
    if x < lo:
        return lo
    if x > lo:
        return hi
    return x


def total(xs):
    n = 0
    for x in xs:
        n += clamp(x, 0, 10)
    return n
'''

TESTS = """from pkg.calc import clamp, total


def test_inside():
    assert clamp(5, 0, 10) == 5


def test_low():
    assert clamp(-1, 0, 10) == 0


def test_high():
    assert clamp(11, 0, 10) == 10
"""

PYTHON = sys.executable
CHECK = f"{PYTHON} -m pytest -q tests/test_calc.py::test_inside"


def project(tmp_path: Path) -> Path:
    return python_package(tmp_path, "calc", CALC, TESTS)


def clamp_call(lines: list[int]) -> Call:
    return Call(file="pkg/calc.py", function="clamp", first_line=1, lines=dict.fromkeys(lines, 1))


def test_the_lines_tried_are_the_statements_the_call_ran_in_line_order() -> None:
    found = units(CALC, clamp_call([3, 5, 6]))
    assert [(u.first, u.last) for u in found] == [(3, 3), (5, 5), (6, 6)]  # `if` headers alone, not their bodies
    assert all((u.start, u.end) == (1, 7) for u in found)
    assert units(CALC, clamp_call([])) == []
    stub = 'def f(x):\n    """Later."""\n    raise NotImplementedError\n'
    assert units(stub, Call(file="f.py", function="f", first_line=1, lines={3: 1})) == []  # nothing written yet


@pytest.mark.parametrize(
    "answer",
    [
        "```python\nif x > hi:\n```",
        "    5     if x > hi:",  # numbered, as the listing was
        # the function copied back with the change: the changed line is the rewrite
        "```python\ndef clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n```",
    ],
)
def test_an_answer_becomes_the_file_with_that_line_rewritten(answer: str) -> None:
    unit = Unit("pkg/calc.py", 5, 5, 1, 7)
    [fix] = candidates(CALC, unit, answer)
    assert fix.source == CALC.replace("if x > lo:", "if x > hi:") and fix.shown == "if x > hi:"


@pytest.mark.parametrize(
    "answer",
    [
        "if x > lo:",  # the same line
        "```python\nif x > hi\n```",  # the file would not parse
        "```python\nif x > lo :\n```",  # the same code, spaced otherwise
        "The line is correct.",
    ],
)
def test_an_answer_that_is_no_rewrite_makes_no_candidate(answer: str) -> None:
    assert candidates(CALC, Unit("pkg/calc.py", 5, 5, 1, 7), answer) == []


def test_several_versions_are_several_candidates_each_a_rewrite_of_the_line() -> None:
    answer = (
        "```python\n# Version 1\nif x >= lo:\n    return hi\n```\n```python\n# Version 2\nif x > lo:\n```\n"
        "```python\nif x > hi:\n```\n```python\nfor x in lo:\n```\n```python\nif x>=lo :\n```"
    )
    found = candidates(CALC, Unit("pkg/calc.py", 5, 5, 1, 7), answer)
    # the unchanged line, the body line, a `for` for an `if`, and the same code spaced otherwise are no candidates
    assert [f.shown for f in found] == ["if x >= lo:", "if x > hi:"]


@pytest.mark.parametrize(
    "answer",
    [
        "return __import__('os').system('touch pwned')",
        "return open('/etc/passwd').read()",
        "return eval(x)",
        "import os; os.remove(lo)",
        'return exec("x")',
    ],
)
def test_a_rewrite_that_reaches_outside_the_module_is_never_a_candidate(answer: str) -> None:
    # The candidates run in the tests before anyone approved their code: a name the module does not use, other than
    # a builtin that only computes, is no fix of a line (a prompt-injected model's `os.system` never runs).
    unit = Unit("pkg/calc.py", 6, 6, 1, 7)  # `return hi`
    assert candidates(CALC, unit, answer) == []
    assert [c.shown for c in candidates(CALC, unit, "return min(x, hi)")] == ["return min(x, hi)"]


def test_the_trials_run_the_named_tests_files_and_know_which_tests_were_named() -> None:
    assert files_command("pytest -q tests/t.py::test_a tests/t.py::test_b") == (
        "pytest -q tests/t.py",
        ["tests/t.py::test_a", "tests/t.py::test_b"],
    )
    assert files_command("uv run python -m pytest tests/t.py -k 'a and b'") == (
        "uv run python -m pytest tests/t.py -k 'a and b'",
        [],
    )
    assert files_command("npm test") is None and files_command("pytest 'unclosed") is None


def test_the_failure_excerpt_keeps_what_failed() -> None:
    output = (
        "F\n=== FAILURES ===\n___ test_inside ___\n\n    def test_inside():\n>       assert clamp(5, 0, 10) == 5\n"
        "E       assert 10 == 5\n\ntests/test_calc.py:5: AssertionError\n1 failed in 0.01s\n"
    )
    assert failure_excerpt(output) == (
        ">       assert clamp(5, 0, 10) == 5\nE       assert 10 == 5\ntests/test_calc.py:5: AssertionError"
    )


def trials(ws: Path, folder: Path, rewrites: list[tuple[str, str]], named: list[str], first: str | None = None) -> str:
    """The driver's output for candidates made by replacing `old` with `new` in pkg/calc.py, as the guard runs it."""
    folder.mkdir()
    real = str((ws / "pkg" / "calc.py").resolve())
    for i, (old, new) in enumerate(rewrites):
        (folder / f"{i}.json").write_text(json.dumps({real: CALC.replace(old, new)}))
    spec = {"named": named, "candidates": [f"{i}.json" for i in range(len(rewrites))], "timeout_s": 60}
    (folder / "trials.json").write_text(json.dumps(spec))
    command = trial_command(PYTHON, folder, f"{PYTHON} -m pytest -q tests/test_calc.py", first)
    done = subprocess.run(command, shell=True, cwd=ws, capture_output=True, text=True, timeout=300, check=False)
    return done.stdout


def test_the_driver_keeps_the_first_candidate_that_passes_breaking_nothing(tmp_path: Path) -> None:
    ws = project(tmp_path)
    output = trials(
        ws,
        tmp_path / "trials",
        [
            ("if x < lo:", "if x < hi:"),  # the named test still fails
            ("return hi", "return x"),  # the named test passes, test_high (passing before) fails
            ("if x > lo:", "if x > hi:"),  # the fix
            ("if x < lo:", "if x <= lo:"),  # never tried: the one before works
        ],
        ["tests/test_calc.py::test_inside"],
    )
    assert output.splitlines() == [
        "baseline: 1 of 3 tests fail",
        "0.json: 1 of 3 tests fail",
        "1.json: 1 of 3 tests fail",
        "2.json: 0 of 3 tests fail",
        "fix: 2.json",
    ]
    assert winner(output) == "2.json" and winner("fix: 2.json\nmore") is None
    assert (ws / "pkg" / "calc.py").read_text() == CALC  # tried by import, never written


def test_with_the_named_tests_first_only_a_candidate_that_passes_them_runs_the_files(tmp_path: Path) -> None:
    ws = project(tmp_path)
    rewrites = [("if x > lo:", "if x > 0:"), ("return hi", "return x"), ("if x > lo:", "if x > hi:")]
    output = trials(ws, tmp_path / "trials", rewrites, ["tests/test_calc.py::test_inside"], first=CHECK)
    assert output.splitlines() == [
        "baseline: 1 of 3 tests fail",
        "0.json: 1 of 1 named tests fail",
        "1.json: 1 of 3 tests fail",  # test_inside passes alone: the files run, and test_high, passing before, fails
        "2.json: 0 of 3 tests fail",
        "fix: 2.json",
    ]


def test_no_candidate_works_no_fix(tmp_path: Path) -> None:
    ws = project(tmp_path)
    output = trials(ws, tmp_path / "trials", [("return hi", "return x")], ["tests/test_calc.py::test_inside"])
    assert output.splitlines()[-1] == "no fix" and winner(output) is None


def test_a_candidate_that_loops_is_stopped_soon_with_its_tests_and_the_next_one_tried(tmp_path: Path) -> None:
    ws = project(tmp_path)
    loops = "    while x == x:\n        pass\n    if x < lo:"
    output = trials(ws, tmp_path / "trials", [("    if x < lo:", loops), ("if x > lo:", "if x > hi:")], [])
    rows = output.splitlines()
    assert rows[2:] == ["1.json: 0 of 3 tests fail", "fix: 1.json"]
    # given five times the baseline's run (ten seconds at least), not the minute a whole run may take
    given = re.fullmatch(r"0\.json: the run made no report \(or took over (\d+) s\)", rows[1])
    assert given is not None and 10 <= int(given[1]) < 60
    assert not running_with(str(tmp_path / "trials" / "0.json"))  # its pytest (the shell's child) stopped with it


def running_with(value: str) -> list[int]:
    """The processes whose environment holds `value`."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if value.encode() in environ.read_bytes():
                found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


async def test_a_working_rewrite_is_written_and_ends_the_turn(tmp_path: Path) -> None:
    ws = project(tmp_path)
    # The lines test_inside ran in clamp: 3 (`if x < lo:`), 5 (`if x > lo:`), 6 (`return hi`), each asked in turn.
    provider = ScriptedProvider("```python\nif x < hi:\n```", "    5     if x > hi:", "```python\nreturn x\n```")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "files"}) as service:
        assert await run(service, client, ws, f"Running `{CHECK}` fails. Fix the bug.") == "end_turn"
    assert (ws / "pkg" / "calc.py").read_text() == CALC.replace("if x > lo:", "if x > hi:")
    assert len(provider.requests) == 3  # the three rewrites, and no turn answer after the fix
    asked = provider.requests[1].messages[-1].content
    assert "This line is wrong:\n```python\nif x > lo:\n```\nWrite it as it should be so that the test passes" in asked
    assert "calls `clamp(x=5, lo=0, hi=10)`, which returned `10`" in asked and "E       assert 10 == 5" in asked
    assert '"""x limited' not in asked and "    if x < lo:" in asked  # the function, without its docstring
    commands = [a.raw_input.get("command", "") for a in client.asked if isinstance(a.raw_input, dict)]
    assert commands[0].endswith(f"{CHECK} -p agent_server_trace")  # the traced run, as a card, approved
    assert "agent_server_trials.py" in commands[1] and "tests/test_calc.py" in commands[1]  # the trials, one card
    assert any(a.title.startswith("Write pkg/calc.py") for a in client.asked)  # the fix, approved as any write
    said = client.text()
    assert "pkg/calc.py line 5 is now `if x > hi:`" in said
    cached = ("__pycache__", ".pytest_cache")  # (pytest's own, as for any test run)
    assert sorted(p.name for p in ws.rglob("*") if p.is_file() and not set(cached) & set(p.parts)) == [
        "__init__.py",
        "calc.py",
        "test_calc.py",
    ]  # nothing of the trials left in the workspace


async def test_no_working_rewrite_leaves_the_file_and_the_turn_goes_on(tmp_path: Path) -> None:
    ws = project(tmp_path)
    # a rewrite of each line, then three versions of each: none works
    answers = ["if x < hi:", "if x > lo:", "return x", "```python\nif x <= lo:\n```\n```python\nif x < 0:\n```", "", ""]
    provider = ScriptedProvider(*answers, "I could not find it.", "Still nothing.")
    client = RecordingClient()
    agent = {"edit_format": "files", "fix_mutants": 0}  # (a one-token variant would fix it: the test below)
    async with scripted_service(ws, provider, client, agent=agent) as service:
        sid = (await service.new_session(str(ws))).id
        await service.prompt(sid, [acp.TextContent(text=f"Running `{CHECK}` fails. Fix the bug.")], client)
        # A follow-up on the same code: the same trials would cost the same minutes for the same answer.
        await service.prompt(sid, [acp.TextContent(text="It still fails, fix it.")], client)
    assert len(provider.requests) == 8 and provider.requests[7].messages[-1].content.startswith(
        "It still fails, fix it."
    )
    thoughts = [u.content.text for u in client.updates if isinstance(u, acp.AgentThoughtChunk)]
    assert any("tried on this code before, and none worked" in t for t in thoughts)
    assert (ws / "pkg" / "calc.py").read_text() == CALC
    assert "Write 3 different versions of it" in provider.requests[3].messages[-1].content
    assert len(provider.requests) >= 7  # the turn's own request came after the six
    assert provider.requests[6].messages[-1].content.startswith("Running `")  # the user's request, as it was
    trials = [r for r in client.tool_results() if "baseline: 1 of 3 tests fail" in r]
    # the rewrites, then the versions (of the lines fewest passing tests ran first: `if x > lo:`), each run with the
    # named test alone first, and the files for the candidates that pass it (`if x <= lo:`, which breaks test_high)
    assert len(trials) == 2 and "0.json: 1 of 1 named tests fail" in trials[0]
    assert trials[1].endswith("3.json: 1 of 3 tests fail\nno fix")


async def test_when_no_rewrite_works_a_one_token_variant_of_the_lines_can(tmp_path: Path) -> None:
    ws = project(tmp_path)
    # The model rewrites each line wrongly; `if x > lo:` with `hi` for `lo` is among the lines' variants.
    provider = ScriptedProvider("if x < hi:", "if x > 0:", "return x", "Never asked.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "files"}) as service:
        assert await run(service, client, ws, f"Running `{CHECK}` fails. Fix the bug.") == "end_turn"
    assert (ws / "pkg" / "calc.py").read_text() == CALC.replace("if x > lo:", "if x > hi:")
    assert len(provider.requests) == 3  # the model's three rewrites, then no versions round and no turn answer
    thoughts = [u.content.text for u in client.updates if isinstance(u, acp.AgentThoughtChunk)]
    assert any("one-token variants of those lines" in t for t in thoughts)
    trials = [r for r in client.tool_results() if "baseline: 1 of 3 tests fail" in r]
    assert len(trials) == 2 and trials[1].endswith("0 of 3 tests fail\nfix: " + trials[1].rsplit("fix: ", 1)[1])
    assert "pkg/calc.py line 5 is now `if x > hi:`" in client.text()


async def test_off_or_declined_nothing_is_tried(tmp_path: Path) -> None:
    ws = project(tmp_path)
    for agent, answer in (({"fix_trials": 0}, "allow_once"), ({}, "reject_once")):
        provider = ScriptedProvider(*["I looked."] * 10)
        client = RecordingClient(answer)
        async with scripted_service(ws, provider, client, agent={"edit_format": "files", **agent}) as service:
            await run(service, client, ws, f"Running `{CHECK}` fails. Fix the bug.")
        assert "Rewrite line" not in provider.requests[0].messages[-1].content
        assert (ws / "pkg" / "calc.py").read_text() == CALC
