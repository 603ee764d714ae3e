"""Which lines the later fix trials try (turn/fix_spectrum.py, the Spectrum pytest plugin, the trial driver's
`spectrum.json`): the lines the failing test ran that the passing tests did not, first, including those of a helper
beyond the first `agent.fix_trials` statements of the traced call. Real pytest runs, the loop in process with a
scripted model.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agent_server.llm.scripted import ScriptedProvider
from agent_server.turn.failure_path import Call
from agent_server.turn.fix_spectrum import Spectrum, ranked, read_spectrum
from agent_server.turn.fix_trials import Planned, trial_command, units
from tests.turn.inprocess import RecordingClient, python_package, run, scripted_service

# `price` runs five statements before it reaches the helper; the passing tests run all of them but the helper's call.
SHOP = """def price(items, discount):
    total = 0
    count = 0
    for item in items:
        total += item
        count += 1
    if discount:
        total = _apply(total, discount)
    return total


def _apply(total, discount):
    cut = min(discount, total)
    return total - cut - 1
"""

TESTS = """from pkg.shop import price


def test_plain():
    assert price([1, 2], 0) == 3


def test_one():
    assert price([5], 0) == 5


def test_discount():
    assert price([10], 3) == 7
"""

PYTHON = sys.executable
CHECK = f"{PYTHON} -m pytest -q tests/test_shop.py::test_discount"


def project(tmp_path: Path) -> Path:
    return python_package(tmp_path, "shop", SHOP, TESTS)


def baseline_spectrum(ws: Path, folder: Path) -> Spectrum | None:
    """The driver's baseline run of the tests' file, recording pkg/shop.py's lines, as the guard's first trial runs it
    (with one candidate that changes nothing that matters)."""
    folder.mkdir()
    real = str((ws / "pkg" / "shop.py").resolve())
    (folder / "0.json").write_text(json.dumps({real: SHOP.replace("count = 0", "count = 0  # same")}))
    spec = {"named": ["tests/test_shop.py::test_discount"], "candidates": ["0.json"], "spectrum": [real]}
    (folder / "trials.json").write_text(json.dumps(spec))
    command = trial_command(PYTHON, folder, f"{PYTHON} -m pytest -q tests/test_shop.py")
    done = subprocess.run(command, shell=True, cwd=ws, capture_output=True, text=True, timeout=300, check=False)
    assert done.stdout.splitlines()[0] == "baseline: 1 of 3 tests fail"
    return read_spectrum(folder / "spectrum.json")


def test_the_baseline_counts_which_tests_ran_each_line(tmp_path: Path) -> None:
    ws = project(tmp_path)
    spectrum = baseline_spectrum(ws, tmp_path / "trials")
    assert spectrum is not None and spectrum.failing == 1
    shop = ws / "pkg" / "shop.py"
    rows = SHOP.splitlines()
    at = {text.strip(): n for n, text in enumerate(rows, 1)}
    real = str(shop.resolve())
    assert spectrum.lines[(real, at["total = 0"])] == (1, 2)  # the failing test and both passing ones
    assert spectrum.lines[(real, at["return total - cut - 1"])] == (1, 0)  # the failing test alone
    assert (real, at["total = _apply(total, discount)"]) in spectrum.lines
    assert spectrum.score(shop, at["return total - cut - 1"], at["return total - cut - 1"]) == 1.0
    assert 0 < spectrum.score(shop, at["total = 0"], at["total = 0"]) < 1.0
    # Nothing of the record is left in the workspace.
    assert not [p for p in ws.rglob("*spectrum*")]


def test_the_lines_no_passing_test_ran_come_first_even_a_helper_the_plan_did_not_list(tmp_path: Path) -> None:
    ws = project(tmp_path)
    spectrum = baseline_spectrum(ws, tmp_path / "trials")
    assert spectrum is not None
    shop = ws / "pkg" / "shop.py"
    price = Call(file="pkg/shop.py", function="price", first_line=1, lines=dict.fromkeys(range(2, 10), 1))
    plan: list[Planned] = [(price, shop, SHOP, u) for u in units(SHOP, price)]  # the helper's lines not listed
    order = [SHOP.splitlines()[item[3].first - 1].strip() for item in ranked(plan, spectrum)]
    assert set(order[:3]) == {"total = _apply(total, discount)", "cut = min(discount, total)", "return total - cut - 1"}
    rest = ["total = 0", "count = 0", "for item in items:", "total += item", "count += 1", "if discount:"]
    assert order[3:] == [*rest, "return total"]  # every test ran them: the traced order
    assert all(item[0] is price for item in ranked(plan, spectrum))  # the request still names the test's own call


def test_an_unreadable_or_empty_record_ranks_nothing(tmp_path: Path) -> None:
    for text in ("", "{", '{"failing": 0, "lines": {}}', '{"failing": 1, "lines": {"x": {"1": "?"}}}'):
        (tmp_path / "spectrum.json").write_text(text)
        assert read_spectrum(tmp_path / "spectrum.json") is None
    assert read_spectrum(tmp_path / "missing.json") is None


async def test_a_fault_beyond_the_first_lines_tried_is_found_by_the_passing_tests_lines(tmp_path: Path) -> None:
    # Off, the same trials stay with the call's first three statements: nothing found, the file as it was.
    ws = project(tmp_path / "off")
    provider = ScriptedProvider(*["```python\npass\n```"] * 12, "I could not find it.")
    agent = {"edit_format": "files", "fix_trials": 3, "fix_spectrum": False}
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent=agent) as service:
        await run(service, client, ws, f"Running `{CHECK}` fails. Fix the bug.")
    assert (ws / "pkg" / "shop.py").read_text() == SHOP
    ws = project(tmp_path)
    # Three statements a round: the first round's rewrites (the model's `pass`) are of `price`'s first three; the
    # variants then take the three lines no passing test ran, the helper's `- 1` among them.
    provider = ScriptedProvider(*["```python\npass\n```"] * 12)
    client = RecordingClient()
    agent = {"edit_format": "files", "fix_trials": 3}
    async with scripted_service(ws, provider, client, agent=agent) as service:
        assert await run(service, client, ws, f"Running `{CHECK}` fails. Fix the bug.") == "end_turn"
    fixed = (ws / "pkg" / "shop.py").read_text()
    assert fixed != SHOP and "return total - cut - 1" not in fixed and "total = 0\n" in fixed
    assert len(provider.requests) == 3  # the first round's three rewrites; the variants found it
    module: dict[str, object] = {}
    exec(compile(fixed, "shop.py", "exec"), module)  # the code the test imports, as written
    price = module["price"]
    assert callable(price) and price([10], 3) == 7 and price([1, 2], 0) == 3
    assert "pkg/shop.py line 14 is now" in client.text()
