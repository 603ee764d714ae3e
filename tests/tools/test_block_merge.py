"""A chat code block merged into a file as an edit (issue 29): the definition it redefines is replaced, the rest and
the final newline stay; no single place gives None (the editor asks instead)."""

from __future__ import annotations

from agent_server.tools.block_merge import merge_block

PY = "import os\n\n\ndef total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"


def test_a_function_block_replaces_that_function_and_keeps_the_final_newline() -> None:
    block = "def total(xs):\n    # never None\n    return sum(x or 0 for x in xs)\n"
    merged = merge_block(PY, block)
    assert merged == PY.replace("    return sum(xs)\n", "    # never None\n    return sum(x or 0 for x in xs)\n")
    assert merge_block(PY, block.rstrip("\n")) == merged  # a block without its last newline: the file keeps its own


def test_a_method_block_written_without_its_indentation_is_reindented() -> None:
    text = "class Stats:\n    def mean(self, xs):\n        return sum(xs) / len(xs)\n\n    def size(self):\n        return 0\n"
    merged = merge_block(text, "def mean(self, xs):\n    return sum(xs) / max(1, len(xs))")
    assert merged == text.replace("/ len(xs)", "/ max(1, len(xs))")


def test_a_brace_language_block_takes_its_closing_brace_and_crlf_stays() -> None:
    text = "function a() {\r\n  return 1;\r\n}\r\n\r\nfunction b() {\r\n  return 2;\r\n}\r\n"
    merged = merge_block(text, "function a() {\n  return 10;\n}")
    assert merged == text.replace("return 1;", "return 10;")


def test_no_single_place_gives_none() -> None:
    assert merge_block(PY, "def median(xs):\n    return sorted(xs)[len(xs) // 2]\n") is None
    twice = "def f():\n    return 1\n\n\ndef f():\n    return 2\n"
    assert merge_block(twice, "def f():\n    return 3\n") is None


def test_two_definitions_replace_from_the_first_to_the_end_of_the_last() -> None:
    block = "def total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return total(xs) / max(1, len(xs))\n"
    assert merge_block(PY, block) == PY.replace("/ len(xs)", "/ max(1, len(xs))")
