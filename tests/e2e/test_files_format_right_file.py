"""The files format puts the right file in front of a small model, through the real server and the fake LLM.

Bug reports against libraries name the failing test and paste its output, never the file: the file is found from
the traceback's frames and the test's imports (also in `src/` layouts and from an installed copy's paths), a module
too long for the budget is shown in part with line numbers and answered with search/replace blocks, the answer's
length is capped, a greeting is not framed as an edit, and a request for a test may write the test. The libraries
are small hand-written ones (tests/fixtures/libraries); their failing output comes from really running them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import answer_permissions, install_apply_edit, prompt
from tests.fakes.fake_llm import FakeLLMServer, Reply

LIBRARIES = Path(__file__).resolve().parents[1] / "fixtures" / "libraries"


def library(name: str, dest: Path) -> Path:
    return Path(shutil.copytree(LIBRARIES / name, dest / name))


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """A real run's output (stdout and stderr), as a user would paste it."""
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False)
    return done.stdout + done.stderr


def options(fake: FakeLLMServer, **agent: Any) -> dict[str, Any]:
    return {**llm_options(fake), "agent": {"editFormat": "files", **agent}}


def user_text(body: dict[str, Any]) -> str:
    return "\n".join(str(m["content"]) for m in body["messages"] if m["role"] == "user")


def readme_or_config_shown(text: str) -> bool:
    return any(mark in text for mark in ("# tinyini", "Using tinyini", "[build-system]", "README.md\n```"))


def pytest_output(ws: Path) -> str:
    return run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], ws)


def installed_traceback(ws: Path, tmp: Path) -> str:
    """The library installed (copied into a site-packages folder) and called from a program: every frame names the
    installed copy, none the workspace."""
    site = tmp / "venv" / "lib" / "python3.11" / "site-packages"
    shutil.copytree(ws / "src" / "tinyini", site / "tinyini")
    program = "import tinyini\nprint(tinyini.to_list(None))\n"
    return run([sys.executable, "-c", program], tmp, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("report", ["pytest output", "installed copy"])
async def test_a_failure_in_a_src_layout_library_shows_the_module_not_the_readme(
    start_server: Start, tmp_path: Path, fake_llm: FakeLLMServer, report: str
) -> None:
    ws = library("tinyini", tmp_path)
    if report == "pytest output":  # an assertion in the test: the only frame is the test's, the module is imported
        output = pytest_output(ws)
        assert "FAILED tests/test_values.py::test_to_list_skips_blank_items" in output, output
        request = f"tests/test_values.py::test_to_list_skips_blank_items fails:\n\n{output}"
    else:
        output = installed_traceback(ws, tmp_path)
        assert "site-packages/tinyini/values.py" in output, output
        request = f"My program crashes with this:\n\n{output}"
    fake_llm.script(Reply.text("I will look into it."))
    client = await start_server(ws, options(fake_llm))
    sid = await new_session(client, ws)
    assert await prompt(client, sid, request) == "end_turn"
    shown = user_text(fake_llm.chat_requests()[0].json)
    assert "src/tinyini/values.py\n```python\n" in shown and "def to_list(" in shown
    assert "Reply with the whole new content of src/tinyini/values.py" in shown
    assert not readme_or_config_shown(shown), shown
    assert "class ParseError" not in shown  # no other module stands in for the one the failure went through


def long_module(ws: Path) -> tuple[str, int]:
    """durations/core.py grown to a real library's length (conversion helpers around parse_duration); its text and
    the line of the bug."""
    core = ws / "durations" / "core.py"
    helpers = [
        f'def _per_unit_{i}(value: float) -> float:\n    """Seconds in `value` units (table {i})."""\n'
        f"    factor = {i} * 0.5 + 1\n    return value * factor\n\n\n"
        for i in range(200)
    ]
    text = core.read_text().replace("# --- helpers ---\n", "".join(helpers[:180]))
    text += "\n\n" + "".join(helpers[180:]).rstrip() + "\n"
    core.write_text(text)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "UNITS[match.group(2)]" in row)
    return text, line


async def test_a_module_over_the_budget_is_shown_in_part_and_answered_with_search_replace(
    start_server: Start, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    ws = library("durations", tmp_path)
    before, bug = long_module(ws)
    assert len(before.splitlines()) > 1200
    output = pytest_output(ws)
    assert f"durations/core.py:{bug}: KeyError" in output, output
    fix = (
        "durations/core.py\n<<<<<<< SEARCH\n        total += float(match.group(1)) * UNITS[match.group(2)]\n=======\n"
        "        total += float(match.group(1)) * UNITS[match.group(2).lower()]\n>>>>>>> REPLACE\n"
    )
    fake_llm.script(Reply.text(fix))
    client = await start_server(ws, options(fake_llm, filesTokens=4000))
    answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, ws)
    assert await prompt(client, sid, f"This test fails, please fix it:\n\n{output}") == "end_turn"
    body = fake_llm.chat_requests()[0].json
    shown = user_text(body)
    spans = re.findall(r"^durations/core\.py, lines (\d+)-(\d+):\n```python\n", shown, re.M)
    assert any(int(a) <= bug <= int(b) for a, b in spans), shown  # the function the traceback names, numbered
    assert "is too long to show whole: shown in part" in shown
    assert "def _per_unit_75(" not in shown  # far from the failure: left out
    assert "<<<<<<< SEARCH" in shown and "reply with search/replace blocks, not the whole file" in shown
    assert "Reply with the whole new content of durations" not in shown
    assert not readme_or_config_shown(shown) and "Human durations" not in shown
    # The answer is capped far below re-typing the module (a 0.5B model spent four minutes doing that).
    assert body["options"]["num_predict"] <= 4096 < len(before) / 4
    after = (ws / "durations" / "core.py").read_text()
    assert after == before.replace("UNITS[match.group(2)]", "UNITS[match.group(2).lower()]")


async def test_a_greeting_is_not_framed_as_an_edit(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    readme = "# Demo\n\nA demo project.\n"
    (workspace / "README.md").write_text(readme)
    # What a 0.5B model did when told to reply with whole files: the README back.
    fake_llm.script(Reply.text(f"README.md\n```markdown\n# Hello\n\n{readme}```"))
    client = await start_server(workspace, options(fake_llm))
    asked = answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Say hello") == "end_turn"
    body = fake_llm.chat_requests()[0].json
    shown = user_text(body)
    assert "A demo project" not in shown and "Reply with" not in shown and "whole new content" not in shown
    assert asked == [] and (workspace / "README.md").read_text() == readme


CALC = "def add(a, b):\n    return a + b\n"
CALC_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
NEW_CALC = CALC + "\n\ndef sub(a, b):\n    return a - b\n"
NEW_TEST = "from calc import add, sub\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_sub():\n" + (
    "    assert sub(3, 2) == 1\n"
)


@pytest.mark.parametrize("test_exists", [True, False])
async def test_a_request_for_a_test_lets_the_test_file_be_written(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, test_exists: bool
) -> None:
    (workspace / "calc.py").write_text(CALC)
    (workspace / "tests").mkdir()
    if test_exists:
        (workspace / "tests" / "test_calc.py").write_text(CALC_TEST)
    answer = f"calc.py\n```python\n{NEW_CALC}```\n\ntests/test_calc.py\n```python\n{NEW_TEST}```\n"
    fake_llm.script(Reply.text(answer), Reply.text("Done."))
    client = await start_server(workspace, options(fake_llm))
    asked = answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    request = "Add a function sub(a, b) to calc.py and a test for it in tests/test_calc.py."
    assert await prompt(client, sid, request) == "end_turn"
    body = fake_llm.chat_requests()[0].json
    shown, system = user_text(body), body["messages"][0]["content"]
    assert "Do not change tests/test_calc.py" not in shown and "Never change test files" not in system
    if test_exists:
        assert "tests/test_calc.py\n```python\n" + CALC_TEST in shown
    else:
        assert "To create tests/test_calc.py" in shown
    assert (workspace / "calc.py").read_text() == NEW_CALC
    assert (workspace / "tests" / "test_calc.py").read_text() == NEW_TEST
    assert sorted(a["toolCall"]["rawInput"]["path"] for a in asked) == ["calc.py", "tests/test_calc.py"]
