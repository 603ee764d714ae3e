"""The failing test's path (turn/failure_path.py, the pytest plugin in turn/pytest_trace/, the FailureTrace guard):
before the first answer to "running `pytest t.py::test_x` fails", the test runs once more with a tracer, for real,
and the model is told the test's last call into the project's code, what it returned or raised, and which lines ran.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_server.llm.scripted import ScriptedProvider
from agent_server.turn.failure_path import read_trace, render, traced
from tests.turn.inprocess import RecordingClient, python_package, run, scripted_service

MOD = '''class Box:
    def __init__(self, items):
        self.items = items

    def __repr__(self):
        return f"Box({self.items!r})"

    def __eq__(self, other):
        return isinstance(other, Box) and self.items == other.items


def get(ind, seq):
    """Items of seq by index; a list of indexes gives a tuple."""
    try:
        return seq[ind]
    except TypeError:  # ind may be a list
        if len(ind) > 2:
            return tuple(seq[i] for i in ind)
        elif ind:
            return (seq[ind[0]],)
        return ()


def half(n):
    if n < 0:
        raise ValueError("negative")
    return n // 2


def boxed(items):
    return Box(list(items)[:-1])


def count_big(xs):
    n = 0
    for x in xs:
        if x > 1:
            n += 1


def todo(x):
    """Not written yet."""
    raise NotImplementedError
'''
TESTS = """from pkg.mod import Box, boxed, count_big, get, half, todo


def test_fine():
    assert get(0, 'AB') == 'A'


def test_get():
    assert get(0, 'AB') == 'A'
    assert get([1, 3], 'ABCDE') == ('B', 'D')


def test_half():
    assert half(-4) == -2


def test_boxed():
    assert boxed([1, 2]) == Box([1, 2])


def test_count():
    assert count_big([1, 2, 3]) == 2


def test_todo():
    assert todo(1) == 2
"""
PYTHON = sys.executable  # an interpreter with pytest (`python -m pytest`: its name is what a request names)


def project(tmp_path: Path) -> Path:
    return python_package(tmp_path, "mod", MOD, TESTS)


def trace(ws: Path, test: str) -> str:
    """The message for `test`, traced by a real pytest run (as the guard runs it, without the card)."""
    out = ws.parent / "trace.json"
    command = traced(f"{PYTHON} -m pytest -q {test}", out, ws, os.environ.get("PYTHONPATH"))
    assert command is not None
    subprocess.run(command, shell=True, cwd=ws, capture_output=True, timeout=120, check=False)
    found = read_trace(out)
    told = render(*found, [ws]) if found is not None else None
    return told.text if told is not None else ""


@pytest.mark.parametrize(
    "command",
    [
        "pytest -q tests/test_x.py::test_y",
        "python -m pytest tests/test_x.py",
        "uv run pytest -k parse",
        "python3 -m pytest -x pkg/foo_test.py",
    ],
)
def test_a_pytest_run_of_named_tests_is_traced(command: str, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    run = traced(command, out, tmp_path, "/lib")
    assert run is not None and run.endswith(f"{command} -p agent_server_trace")
    assert f"AGENT_SERVER_TRACE_OUT={out}" in run and ":/lib " in run  # the user's PYTHONPATH is kept


@pytest.mark.parametrize("command", ["pytest -q", "python -m pytest", "npm test", "python -m unittest t.py", "tox"])
def test_a_whole_suite_or_another_runner_is_not_traced(command: str, tmp_path: Path) -> None:
    assert traced(command, tmp_path / "t.json", tmp_path, None) is None


def test_the_call_that_went_wrong_and_the_path_it_took(tmp_path: Path) -> None:
    ws = project(tmp_path)
    told = trace(ws, "tests/test_mod.py::test_get")
    # the call on the failing line (not the first, which passed), with its arguments and its wrong result
    assert "that went wrong: `get(ind=[1, 3], seq='ABCDE')` (pkg/mod.py) returned `('B',)`." in told
    # each decision, in line order, in words: no block of code a small model would copy back
    assert told.endswith(
        "The path this call took through `get`, line by line:\n"
        "- line 16 `except TypeError:  # ind may be a list` caught an exception\n"
        "- line 17 `if len(ind) > 2:` was false\n"
        "- line 19 `elif ind:` was true\n"
        "- line 20 `return (seq[ind[0]],)` returned `('B',)`"
    )
    assert "```" not in told


def test_a_raised_error_and_a_loop(tmp_path: Path) -> None:
    ws = project(tmp_path)
    told = trace(ws, "tests/test_mod.py::test_half")
    assert "`half(n=-4)` (pkg/mod.py) raised `ValueError: 'negative'` at line 26." in told
    assert told.endswith(
        "- line 25 `if n < 0:` was true\n- line 26 `raise ValueError(\"negative\")` raised `ValueError: 'negative'`"
    )
    told = trace(ws, "tests/test_mod.py::test_count")
    assert "- line 36 `for x in xs:` looped 3 times\n- line 37 `if x > 1:` was true 2 of 3 times\n" in told
    assert "it reached the end of `count_big` and returned `None`" in told  # no return statement ran


def test_the_assertion_message_s_own_calls_are_not_the_test_s(tmp_path: Path) -> None:
    # `assert boxed(x) == Box(y)`: the call that went wrong is boxed, not the expected value's constructor, nor the
    # comparison and the repr pytest makes to explain the failure
    told = trace(project(tmp_path), "tests/test_mod.py::test_boxed")
    assert "went wrong: `boxed(items=[1, 2])` (pkg/mod.py) returned `Box([1])`." in told
    assert "__repr__" not in told and "__eq__" not in told


LOOPS = """def _prepare(text):
    return text.strip(" ")


def _upper(c):
    return c.upper()


def shout(text):
    text = _prepare(text)
    return "".join(_upper(c) for c in text)
"""


def test_a_helper_called_once_is_not_pushed_out_by_many_calls_of_another(tmp_path: Path) -> None:
    # The trace kept the newest 40 calls: a helper called first, then 200 calls of a small one, and the helper (where
    # the fault is) was gone from what the model was told and from the lines the fix trials try. One record a
    # function keeps it, with the newest call of each.
    ws = python_package(
        tmp_path,
        "loud",
        LOOPS,
        f"from pkg.loud import shout\n\n\ndef test_shout():\n    assert shout('{'a' * 200}\\n') == '{'A' * 200}'\n",
    )
    told = trace(ws, "tests/test_loud.py::test_shout")
    assert "Inside it, it called: `_prepare(text=" in told
    assert told.count("`_upper(c=") == 1  # the newest of its 201 calls, once


def test_a_stub_or_a_passing_test_tells_nothing(tmp_path: Path) -> None:
    ws = project(tmp_path)
    assert trace(ws, "tests/test_mod.py::test_todo") == ""  # nothing written yet: no path to follow
    assert trace(ws, "tests/test_mod.py::test_fine") == ""


async def test_the_model_is_told_the_path_before_its_first_answer(tmp_path: Path) -> None:
    ws = project(tmp_path)
    check = f"{PYTHON} -m pytest -q tests/test_mod.py::test_get"
    fixed = MOD.replace("len(ind) > 2", "len(ind) > 1")
    provider = ScriptedProvider(f"pkg/mod.py\n```python\n{fixed}```\n")
    client = RecordingClient()
    async with scripted_service(
        ws, provider, client, agent={"edit_format": "files", "trace_failure": True, "fix_trials": 0}
    ) as service:
        assert await run(service, client, ws, f"Running `{check}` fails. Fix the bug.") == "end_turn"
    first = provider.requests[0].messages
    assert first[-2].content.startswith("Running `") and "pkg/mod.py" in first[-2].content  # the request, its files
    told = first[-1].content  # then the path, and how to answer
    assert "returned `('B',)`" in told and "- line 17 `if len(ind) > 2:` was false" in told
    # last, how to answer: a search/replace block of that file (the files format)
    assert told.endswith(
        "answer with a search/replace block that changes it, after the file's path:\npkg/mod.py\n"
        "<<<<<<< SEARCH\n(the wrong line, copied exactly as it is now)\n=======\n"
        "(the line as it should be)\n>>>>>>> REPLACE"
    )
    # the traced run asked first, as any command, and showed its card; the check ran again after the fix and passed
    asked = [a.raw_input["command"] for a in client.asked if isinstance(a.raw_input, dict) and "command" in a.raw_input]
    assert len(asked) == 3 and asked[0].endswith(f"{check} -p agent_server_trace") and asked[1] == check
    assert "--compare" in asked[2]  # as the turn ends: its change left no test of that file worse (no_worse.py)
    assert "len(ind) > 1" in (ws / "pkg" / "mod.py").read_text() and len(provider.requests) == 1
    assert not list(ws.glob("**/trace.json")) and not (ws / "agent-server-trace").exists()  # nothing left behind


async def test_off_or_declined_nothing_is_told(tmp_path: Path) -> None:
    ws = project(tmp_path)
    request = f"Running `{PYTHON} -m pytest -q tests/test_mod.py::test_get` fails. Fix the bug."
    # off (the default: measured, it finished no more tasks with the 1.5B), or on and the run declined
    for agent, answer in (({}, "allow_once"), ({"trace_failure": True}, "reject_once")):
        provider = ScriptedProvider("I looked.")
        client = RecordingClient(answer)
        async with scripted_service(
            ws, provider, client, agent={"edit_format": "files", "fix_trials": 0, **agent}
        ) as service:
            await run(service, client, ws, request)
        assert "tracer" not in provider.requests[0].messages[-1].content


async def test_with_tool_calls_the_ask_is_an_edit_file_call(tmp_path: Path) -> None:
    ws = project(tmp_path)
    provider = ScriptedProvider(*["The bug is in get."] * 4)  # (the guards after it ask again: answered alike)
    client = RecordingClient()
    async with scripted_service(
        ws, provider, client, agent={"edit_format": "tools", "trace_failure": True, "fix_trials": 0}
    ) as service:
        await run(service, client, ws, f"`{PYTHON} -m pytest -q tests/test_mod.py::test_get` fails: fix it.")
    told = provider.requests[0].messages[-1].content
    assert "returned `('B',)`" in told and told.endswith(
        "change it with edit_file on pkg/mod.py (old_text: "
        "the wrong line, copied exactly; new_text: the line "
        "as it should be)."
    )
