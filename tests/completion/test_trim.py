"""Where a suggestion ends: the block, the indentation, the text after the cursor, one line or several."""

from __future__ import annotations

import pytest

from agent_server.completion.trim import Cursor, cut, finish


def test_block_ends_at_a_line_indented_less_than_the_cursor() -> None:
    cursor = Cursor("    ", "", ["", "def other():"])
    raw = "total = a + b\n    return total\n\ndef unrelated():\n    pass\n"
    assert finish(raw, cursor, True, 8) == "total = a + b\n    return total"
    text, done = cut(raw, cursor, True, 8)
    assert done and "unrelated" not in text


def test_after_an_opener_the_body_is_kept_and_the_next_statement_at_the_same_level_is_not() -> None:
    cursor = Cursor("def double(x):", "", [])
    raw = "\n    y = x * 2\n    return y\ndef triple(x):\n    return 3 * x\n"
    assert finish(raw, cursor, True, 8) == "\n    y = x * 2\n    return y"


def test_a_closing_brace_at_the_opener_level_is_included_then_it_stops() -> None:
    cursor = Cursor("int f(int x) {", "", [])
    raw = "\n    return x + 1;\n}\nint g(void) {\n"
    assert finish(raw, cursor, True, 8) == "\n    return x + 1;\n}"


def test_a_line_that_repeats_the_code_below_the_cursor_is_never_suggested() -> None:
    cursor = Cursor("    ", "", ["    return result", ""])
    raw = "result = compute(x)\n    return result\n"
    assert finish(raw, cursor, True, 8) == "result = compute(x)"


@pytest.mark.parametrize(
    ("raw", "after", "expected"),
    [("a, b)\nmore", ")", "a, b"), ("name, value):", "):", "name, value"), ("x + 1", ")", "x + 1")],
)
def test_mid_line_gives_one_line_without_the_rest_of_the_line_repeated(raw: str, after: str, expected: str) -> None:
    cursor = Cursor("call(", after, ["next_line()"])
    assert finish(raw, cursor, True, 8) == expected


def test_a_model_that_only_retypes_the_rest_of_the_line_gives_nothing() -> None:
    assert finish(")", Cursor("print(x", ")", []), True, 8) == ""


def test_single_line_mode_and_max_lines() -> None:
    cursor = Cursor("    ", "", [])
    raw = "a = 1\n    b = 2\n    c = 3\n    d = 4\n"
    assert finish(raw, cursor, False, 8) == "a = 1"
    assert finish(raw, cursor, True, 2) == "a = 1\n    b = 2"
    assert cut("a = 1\n    b", cursor, False, 8) == ("a = 1", True)
    assert cut("a = 1", cursor, False, 8) == ("a = 1", False)


def test_top_level_statement_group_ends_at_a_blank_line() -> None:
    cursor = Cursor("", "", [])
    assert finish("import os\nimport sys\n\n\nclass A:\n    pass\n", cursor, True, 8) == "import os\nimport sys"


def test_whitespace_only_output_is_no_suggestion() -> None:
    assert finish("  \n\n", Cursor("x = ", "", []), True, 8) == ""
