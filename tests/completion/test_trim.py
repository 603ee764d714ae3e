"""Where a suggestion ends: the block, the indentation, the text after the cursor, one line or several."""

from __future__ import annotations

import ast

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


# The block ends where the cursor's block ends (issue 42): a stream that runs past the function is never accepted as
# a dangling `def`, whatever point the stream stops at (the token limit cuts it mid-line).

AREA = "def area(width, height):\n    {}\n\n\ndef main():\n    print(area(2, 3))\n"
PAST_THE_END = "width = max(width, 0)\n    return width * height\n\n\ndef perimeter(width, height):\n    return 2 * (w"


@pytest.mark.parametrize("stop", range(len("width = max(width, 0)"), len(PAST_THE_END) + 1))
def test_a_suggestion_inside_a_function_never_runs_into_the_next_definition(stop: int) -> None:
    text = finish(PAST_THE_END[:stop], Cursor("    ", "", ["", "", "def main():"]), True, 8)
    assert "def" not in text and "perimeter" not in text
    ast.parse(AREA.format(text))  # accepting it leaves a file that parses


def test_a_stream_cut_mid_line_after_the_block_is_not_kept() -> None:
    cursor = Cursor("    ", "", [])
    assert finish("return width * height\n\n\ndef ma", cursor, True, 8) == "return width * height"
    assert finish("return width * height\n\n\nclass Sha", cursor, True, 8) == "return width * height"


TOP = "def area(w, h):\n    return w * h\n\n\n{}\n"
TWO_DEFINITIONS = "def perimeter(w, h):\n    return 2 * (w + h)\ndef volume(w, h, d):\n    return w * h * d\n"


@pytest.mark.parametrize("stop", range(len("def perimeter(w, h):\n    return 2 * (w + h)"), len(TWO_DEFINITIONS) + 1))
def test_at_top_level_a_new_definition_after_the_current_one_is_not_suggested(stop: int) -> None:
    text = finish(TWO_DEFINITIONS[:stop], Cursor("", "", []), True, 8)
    assert text == "def perimeter(w, h):\n    return 2 * (w + h)"
    ast.parse(TOP.format(text))


def test_a_statement_then_a_new_definition_at_top_level_stops_before_the_definition() -> None:
    assert finish("x = 1\ny = 2\n@cache\ndef f():\n    pass\n", Cursor("", "", []), True, 8) == "x = 1\ny = 2"
    assert (
        finish("@cache\ndef f():\n    return 1\ndef g():\n", Cursor("", "", []), True, 8)
        == "@cache\ndef f():\n    return 1"
    )


def test_in_a_class_body_one_method_is_suggested_not_the_next() -> None:
    cursor = Cursor("    ", "", [])
    raw = "@property\n    def a(self):\n        return 1\n\n    @property\n    def b(self):\n        return 2\n"
    assert finish(raw, cursor, True, 12) == "@property\n    def a(self):\n        return 1"


def test_statements_and_their_else_branches_at_the_cursor_level_are_kept() -> None:
    cursor = Cursor("    ", "", [])
    raw = "if x:\n        y = 1\n    else:\n        y = 2\n    return y\n"
    assert finish(raw, cursor, True, 8) == "if x:\n        y = 1\n    else:\n        y = 2\n    return y"


@pytest.mark.parametrize(
    "raw",
    [
        "total = a + b\n    class Y:",
        "total = a + b\n    def helper(",
        "total = a + b\n    if total > 0:\n",
        "total = a + b\n    print(total,\n          a,",
        "total = a + b\n    @decorator",
    ],
)
def test_a_trailing_line_that_opens_what_nothing_fills_is_cut(raw: str) -> None:
    assert finish(raw, Cursor("    ", "", []), True, 8) == "total = a + b"


def test_brace_blocks_end_at_the_brace_that_closes_the_block_opened_before_the_cursor() -> None:
    raw = "return a + b;\n}\n\nfunction mul(a, b) {\n  return a * b;\n}\n"
    # the closing brace is already below the cursor: the suggestion stops before it
    assert finish(raw, Cursor("  ", "", ["}", "", "function other() {"]), True, 8) == "return a + b;"
    # unindented code: the brace closes the block opened before the cursor; included when nothing below closes it
    assert finish("return 1;\n}\nint g(void) {\n", Cursor("", "", []), True, 8) == "return 1;\n}"
    assert finish("return 1;\n}\nint g(void) {\n", Cursor("", "", ["}"]), True, 8) == "return 1;"


def test_a_brace_language_function_with_nested_blocks_is_kept_whole() -> None:
    cursor = Cursor("  ", "", ["}"])
    raw = "if (a) {\n    return 1;\n  } else {\n    return 2;\n  }\n}\n"
    assert finish(raw, cursor, True, 8) == "if (a) {\n    return 1;\n  } else {\n    return 2;\n  }"


def test_an_assignment_named_like_a_shell_keyword_is_not_a_closer() -> None:
    cursor = Cursor("while true; do", "", [])
    assert finish("\n  done = 1\ndone\necho after\n", cursor, True, 8) == "\n  done = 1\ndone"


@pytest.mark.parametrize("last", ["    ...", "    from os import *", "    i++", "    return a.b"])
def test_complete_lines_that_end_like_operators_are_kept(last: str) -> None:
    assert finish(f"x = 1\n{last}", Cursor("    ", "", []), True, 8) == f"x = 1\n{last}"
