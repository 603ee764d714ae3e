"""A turn asked to fix a failing test that left that test's files worse than it found them puts the files it changed
back (guards/no_worse.py, the trial driver's `--compare`): real pytest runs, a scripted model, the files format."""

from __future__ import annotations

from pathlib import Path

from agent_server.llm.scripted import ScriptedProvider
from tests.turn.inprocess import RecordingClient, run, scripted_service
from tests.turn.test_fix_trials import CALC, CHECK, project

AGENT = {"edit_format": "files", "fix_trials": 0, "verify_requested": False}
BREAKS_MORE = CALC.replace("    return x\n", "    return None\n").replace("        return lo\n", "        return -1\n")
NO_BETTER = CALC.replace("    if x < lo:\n", "    if x <= lo:\n")  # test_inside still fails, nothing else does


def answer(content: str) -> str:
    return f"pkg/calc.py\n```python\n{content}```\n"


async def test_a_change_that_breaks_tests_that_passed_is_put_back(tmp_path: Path) -> None:
    ws = project(tmp_path)
    provider = ScriptedProvider(answer(BREAKS_MORE), "Done.", "Done.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent=AGENT) as service:
        await run(service, client, ws, f"Running `{CHECK}` fails. Fix the bug.")
    assert (ws / "pkg" / "calc.py").read_text() == CALC
    said = client.text()
    assert "is worse than before (before: 1 of 3 tests fail; after: 2 of 3 tests fail)" in said
    assert "pkg/calc.py: it is back as it was" in said
    commands = [a.raw_input.get("command", "") for a in client.asked if isinstance(a.raw_input, dict)]
    assert any("--compare" in c and "tests/test_calc.py" in c for c in commands)  # a card, approved like any
    assert sum(a.title.startswith("Write pkg/calc.py") for a in client.asked) == 2  # the change, and putting it back


async def test_a_change_that_broke_nothing_more_stays_and_off_nothing_is_put_back(tmp_path: Path) -> None:
    for content, agent in ((NO_BETTER, AGENT), (BREAKS_MORE, {**AGENT, "no_worse": False})):
        ws = project(tmp_path / content[-20:].strip().replace(" ", "_").replace("\n", "_")[:8] / str(len(content)))
        provider = ScriptedProvider(answer(content), "Done.", "Done.")
        client = RecordingClient()
        async with scripted_service(ws, provider, client, agent=agent) as service:
            await run(service, client, ws, f"Running `{CHECK}` fails. Fix the bug.")
        assert (ws / "pkg" / "calc.py").read_text() == content
        assert "is worse than before" not in client.text()


async def test_a_change_that_makes_the_tests_hang_is_put_back(tmp_path: Path) -> None:
    ws = project(tmp_path)
    hangs = CALC.replace("        return lo\n", "        while True:\n            pass\n")  # test_low, passing, hangs
    provider = ScriptedProvider(answer(hangs), "Done.", "Done.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent=AGENT) as service:
        await run(service, client, ws, f"Running `{CHECK}` fails. Fix the bug.")
    assert (ws / "pkg" / "calc.py").read_text() == CALC
    assert "after: no report (or over" in client.text()
