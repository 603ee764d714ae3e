"""Edits written as text (agent.edit_format = "files"): whole files and search/replace blocks become tool calls.

The answers below are shapes small models really produce: a path line in several decorations, the path in the
fence's info string, no path at all, a draft followed by the fix, prose around the blocks.
"""

from __future__ import annotations

import pytest

from agent_server.turn.edit_blocks import Shown, edit_calls

SHOWN = [Shown("leap.py"), Shown("leap_test.py", editable=False)]


def calls(text: str, shown: list[Shown] = SHOWN) -> list[tuple[str, dict[str, str]]]:
    return [(c.name, c.arguments) for c in edit_calls(text, shown)]


@pytest.mark.parametrize(
    "path_line", ["leap.py", "**leap.py**", "### leap.py", "`leap.py`", "File: leap.py", "leap.py:", "- leap.py"]
)
def test_a_whole_file_after_its_path_in_any_decoration(path_line: str) -> None:
    text = f"Here is the solution.\n\n{path_line}\n```python\ndef leap_year(year):\n    return year % 4 == 0\n```\n"
    assert calls(text) == [
        ("write_file", {"path": "leap.py", "content": "def leap_year(year):\n    return year % 4 == 0\n"})
    ]


def test_the_path_in_the_fence_info_string() -> None:
    text = "```python src/app/main.py\nprint('hi')\nx = 1\n```"
    assert calls(text, [Shown("src/app/main.py"), Shown("README.md")]) == [
        ("write_file", {"path": "src/app/main.py", "content": "print('hi')\nx = 1\n"})
    ]


def test_a_lone_block_is_the_only_editable_file_shown() -> None:
    text = "```python\ndef leap_year(year):\n    return True\n```"
    assert calls(text) == [("write_file", {"path": "leap.py", "content": "def leap_year(year):\n    return True\n"})]


def test_a_lone_block_with_two_editable_files_shown_is_not_guessed() -> None:
    text = "```python\ndef f():\n    return 1\n```"
    assert calls(text, [Shown("a.py"), Shown("b.py")]) == []


def test_prose_and_a_shell_snippet_are_not_edits() -> None:
    text = "Run the tests with:\n\n```\npytest -q\n```\n\nThat is all."
    assert calls(text) == []


def test_search_replace_blocks_become_edits_in_order() -> None:
    text = (
        "inventory/store.py\n<<<<<<< SEARCH\n        item.count -= count + 1\n=======\n        item.count -= count\n"
        ">>>>>>> REPLACE\n\ninventory/store.py\n<<<<<<< SEARCH\ndef count(self, name):\n=======\n"
        "def count(self, name):  # stock\n>>>>>>> REPLACE\n"
    )
    got = calls(text, [Shown("inventory/store.py"), Shown("inventory/item.py")])
    assert got == [
        (
            "edit_file",
            {
                "path": "inventory/store.py",
                "old_text": "        item.count -= count + 1",
                "new_text": "        item.count -= count",
            },
        ),
        (
            "edit_file",
            {
                "path": "inventory/store.py",
                "old_text": "def count(self, name):",
                "new_text": "def count(self, name):  # stock",
            },
        ),
    ]


def test_search_replace_inside_a_fence_is_read_as_an_edit_not_a_file() -> None:
    text = "app/values.py\n```python\n<<<<<<< SEARCH\nreturn a\n=======\nreturn b\n>>>>>>> REPLACE\n```\n"
    assert calls(text, [Shown("app/values.py")]) == [
        ("edit_file", {"path": "app/values.py", "old_text": "return a", "new_text": "return b"})
    ]


def test_a_bare_file_name_resolves_to_the_one_shown_file_with_that_name() -> None:
    text = "store.py\n```python\nclass Store:\n    pass\n```"
    assert (
        calls(text, [Shown("inventory/store.py"), Shown("tests/test_store.py")])[0][1]["path"] == "inventory/store.py"
    )


def test_a_draft_then_the_fix_keeps_the_last_version() -> None:
    text = "leap.py\n```python\ndef leap_year(y):\n    pass\n```\nOops, fixed:\nleap.py\n```python\ndef leap_year(y):\n    return y % 4 == 0\n```"
    assert calls(text) == [("write_file", {"path": "leap.py", "content": "def leap_year(y):\n    return y % 4 == 0\n"})]


def test_a_new_file_named_by_its_path_is_written() -> None:
    text = "pkg/new_module.py\n```python\nVALUE = 1\nOTHER = 2\n```"
    assert calls(text, [Shown("pkg/__init__.py")]) == [
        ("write_file", {"path": "pkg/new_module.py", "content": "VALUE = 1\nOTHER = 2\n"})
    ]
