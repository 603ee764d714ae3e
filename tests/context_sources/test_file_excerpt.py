"""A file too long to show whole, shown in part (file_excerpt.py): whole definitions for Python, windows elsewhere,
each part under its line numbers, within the budget."""

from __future__ import annotations

import re

from agent_server.context_sources.file_excerpt import excerpt


def spans(text: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in re.findall(r"lines (\d+)-(\d+):\n```", text)]


def test_a_python_method_named_by_a_frame_is_shown_whole_not_its_huge_class() -> None:
    methods = "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(400))
    text = "import os\n\n\nclass Big:\n" + methods
    line = text.splitlines().index("    def m250(self):") + 1
    part = excerpt("big.py", text, "```python", [line + 1], set(), 2000)
    assert spans(part.text) == [(1, 3), (line, line + 1)]  # the module's start, then the method
    assert "return 250" in part.text and "return 100" not in part.text
    assert "big.py (1204 lines) is too long to show whole" in part.text


def test_another_language_gets_a_window_around_the_line_and_the_named_definition() -> None:
    rows = [f"const v{i} = {i};" for i in range(600)]
    rows[450] = "function parseDuration(text) {"
    part = excerpt("lib.js", "\n".join(rows) + "\n", "```javascript", [300], {"parseDuration"}, 4000)
    found = spans(part.text)
    assert any(s <= 300 <= e and e - s <= 40 for s, e in found), found
    assert any(s <= 451 <= e for s, e in found) and "const v10 = 10;" in part.text  # the file's start, too
    assert "const v200 = 200;" not in part.text


def test_nothing_is_shown_when_not_even_the_first_part_fits() -> None:
    text = "def f():\n" + "    x = 1\n" * 150
    assert excerpt("f.py", text, "```python", [100], set(), 30).text == ""
