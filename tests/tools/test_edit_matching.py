"""The forgiving matcher: each kind of near miss small models make lands in the one right place, or fails clearly."""

from __future__ import annotations

import pytest

from agent_server.errors import ToolError
from agent_server.tools.edit_matching import find_match

PY = (
    "import os\n"
    "\n"
    "\n"
    "def load(path):\n"
    "    if os.path.exists(path):\n"
    "        with open(path) as fh:\n"
    "            return fh.read()\n"
    "    return None\n"
    "\n"
    "\n"
    "def save(path, text):\n"
    "    with open(path, 'w') as fh:\n"
    "        fh.write(text)\n"
)


def apply(text: str, old: str, new: str) -> tuple[str, str]:
    found = find_match(text, old, new, "m.py")
    return text[: found.start] + found.new_text + text[found.end :], found.how


def test_exact_match_is_unchanged() -> None:
    assert apply(PY, "return None", "return ''") == (PY.replace("return None", "return ''"), "exact")


def test_line_numbers_copied_from_read_file_are_ignored() -> None:
    old = "7\t            return fh.read()\n8\t    return None"
    new = "7\t            return fh.read().strip()\n8\t    return None"
    text, how = apply(PY, old, new)
    assert text == PY.replace("fh.read()", "fh.read().strip()") and how == "line numbers"


def test_trailing_spaces_are_forgiven() -> None:
    text, how = apply(PY, "def load(path):   \n    if os.path.exists(path): ", "def load(path):\n    if path:")
    assert text == PY.replace("    if os.path.exists(path):", "    if path:") and how == "trailing spaces"


def test_flattened_block_is_reindented_by_the_files_shift() -> None:
    old = "with open(path) as fh:\n    return fh.read()"
    new = "with open(path) as fh:\n    data = fh.read()\n    return data"
    text, how = apply(PY, old, new)
    assert how == "indentation"
    assert "        with open(path) as fh:\n            data = fh.read()\n            return data\n" in text


def test_two_space_indentation_is_scaled_to_four() -> None:
    old = "def save(path, text):\n  with open(path, 'w') as fh:\n    fh.write(text)"
    new = "def save(path, text):\n  with open(path, 'w') as fh:\n    fh.write(text)\n    fh.flush()"
    text, _ = apply(PY, old, new)
    assert text.endswith("        fh.write(text)\n        fh.flush()\n")


def test_uneven_indentation_is_refused_with_the_real_lines() -> None:
    old = "if os.path.exists(path):\nwith open(path) as fh:\nreturn fh.read()"
    with pytest.raises(ToolError, match=r"unevenly.*\n5\t    if os.path"):
        find_match(PY, old, "pass", "m.py")


def test_other_quote_style_matches_when_unique() -> None:
    text, how = apply(PY, 'with open(path, "w") as fh:', 'with open(path, "a") as fh:')
    assert how == "quotes" and 'with open(path, "a") as fh:' in text


def test_close_match_lands_only_when_unique() -> None:
    old = "    if os.path.exist(path):\n        with open(path) as f:\n            return fh.read()"
    new = "    if os.path.isfile(path):\n        with open(path) as fh:\n            return fh.read()"
    text, how = apply(PY, old, new)
    assert how == "close match" and "if os.path.isfile(path):" in text and text.count("with open(path) as fh:") == 1


def test_two_equally_close_places_are_not_guessed() -> None:
    twice = (
        "def a():\n    total = compute(1)\n    return total\n\n\ndef b():\n    total = compute(2)\n    return total\n"
    )
    with pytest.raises(ToolError, match="closest lines"):
        find_match(twice, "    total = compute(3)\n    return total", "x", "m.py")


def test_ambiguous_loose_match_names_the_lines() -> None:
    twice = "def a():\n    return 1\n\ndef b():\n    return 1\n"
    with pytest.raises(ToolError, match=r"occurs 2 times in m.py \(at lines 2, 5\)"):
        find_match(twice, "return 1  ", "return 2", "m.py")


def test_nothing_close_shows_the_closest_lines_numbered() -> None:
    with pytest.raises(ToolError) as info:
        find_match(PY, "def save(path, content):\n    pass", "x", "m.py")
    message = str(info.value)
    assert "closest lines are 10-11" in message
    assert "11\tdef save(path, text):\n12\t    with open(path, 'w') as fh:" in message


def test_unrelated_text_is_not_found() -> None:
    with pytest.raises(ToolError, match="was not found"):
        find_match(PY, "class Totally:\n    unrelated = True", "x", "m.py")


def test_an_edit_already_made_is_not_reported_as_made_again() -> None:
    """Qwen 0.5B sent its edit (`return a - b` -> `return a + b`) again after it landed: the close match found the
    new line and "replaced" it with itself, and the result said "Edited" once more, so the model went on."""
    text = "def add(a, b):\n    return a + b\n"
    with pytest.raises(ToolError) as err:
        find_match(text, "return a - b", "return a + b", "calc.py")
    assert "already has this change" in str(err.value) and "line 2" in str(err.value)
    with pytest.raises(ToolError, match="already has this change"):  # copied with read_file's line numbers too
        find_match(text, "2\t    return a - b", "2\t    return a + b", "calc.py")
