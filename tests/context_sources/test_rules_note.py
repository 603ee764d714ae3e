"""The "rules cut to fit" note is bounded and counted in the rules budget (issue 38): however many rules files a
repository has, and however long their names, the block stays within its budget and says how many were cut."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_server.context import estimate_text
from agent_server.context_sources.rules import discover
from agent_server.context_sources.rules_prompt import budget_for, render


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("count", [40, 200])
@pytest.mark.parametrize("name_length", [5, 55, 150])
def test_the_block_and_its_note_stay_within_the_budget(tmp_path: Path, count: int, name_length: int) -> None:
    write(tmp_path, "AGENTS.md", "Root rule R1.")
    write(tmp_path, "CONVENTIONS.md", "".join(f"convention {i}\n" for i in range(300)))
    for i in range(count):
        write(tmp_path, f".cursor/rules/{i:03d}{'n' * name_length}.mdc", f"Rule {i}.\n" * 40)
    rules = discover(tmp_path, tmp_path / "no-user")
    for window in (2048, 4096, 8192, 32768):
        budget = budget_for(window, 2000)
        block = render(rules, budget, trusted=False)
        assert estimate_text(block.text) <= budget, (window, block.text[-400:])
        assert block.tokens <= budget and "Root rule R1." in block.text
        assert ("rules cut to fit the model's window:" in block.text) == bool(block.cut)
        assert len(block.cut) <= 21


def test_the_note_names_a_few_and_counts_the_rest(tmp_path: Path) -> None:
    write(tmp_path, "AGENTS.md", "Root rule R1.")
    for i in range(300):
        write(tmp_path, f".cursor/rules/r{i:03d}.mdc", f"Rule {i}.\n" * 40)
    block = render(discover(tmp_path, tmp_path / "no-user"), 512, trusted=True)
    note = block.text[block.text.index("[agent-server: rules cut") :]
    assert note.count(".cursor/rules/") == 3 and "more rules files." in note
    more = re.search(r"(\d+) more rules files \(left out\)", block.cut[-1])
    assert more is not None and len(block.cut) == 21  # the meter lists 20 and counts the rest
    assert f"{20 + int(more.group(1)) - 3} more rules files." in note
