"""Positions in the negotiated encoding: every code point boundary of non-ASCII lines maps to the unit count the
editor uses, and back."""

from __future__ import annotations

import pytest

from agent_server.protocol.positions import from_client, split_lines, to_client, units

# ASCII, CJK (3 UTF-8 bytes, 1 UTF-16 unit), emoji (astral: 4 bytes, 2 units), a combining mark (its own code point).
LINES = ["日本 start", "mid 🎉 x\u0301y", "", "last 日本 🎉 the END 🏁"]
ENCODINGS = ["utf-8", "utf-16", "utf-32"]


def editor_units(text: str, encoding: str) -> int:
    """How the editor counts, independently of the code under test."""
    width = {"utf-8": 1, "utf-16": 2, "utf-32": 4}[encoding]
    return len(text.encode(encoding.replace("utf-16", "utf-16-le").replace("utf-32", "utf-32-le"))) // width


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_every_code_point_boundary_maps_to_the_editors_unit_count_and_back(encoding: str) -> None:
    for line_no, line in enumerate(LINES):
        for index in range(len(line) + 1):
            expected = editor_units(line[:index], encoding)
            assert to_client(LINES, line_no, index, encoding) == (line_no, expected), (line, index)
            assert from_client(LINES, line_no, expected, encoding) == (line_no, index), (line, index)


def test_the_last_line_without_newline_ends_at_its_full_unit_count() -> None:
    text = "a\nlast 日本 🎉 the END 🏁"
    lines = split_lines(text)
    assert to_client(lines, 1, len(lines[1]), "utf-8") == (1, len(lines[1].encode()))
    assert to_client(lines, 1, len(lines[1]), "utf-16") == (1, len(lines[1]) + 2)  # two astral characters
    # A line past the end is the end of the document, counted in the editor's units.
    assert to_client(lines, 7, 0, "utf-8") == (1, len(lines[1].encode()))


def test_a_unit_inside_a_code_point_rounds_down_to_its_start() -> None:
    lines = ["a🎉b"]
    assert [from_client(lines, 0, u, "utf-8")[1] for u in range(7)] == [0, 1, 1, 1, 1, 2, 3]
    assert [from_client(lines, 0, u, "utf-16")[1] for u in range(5)] == [0, 1, 1, 2, 3]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_units_counts_whole_texts(encoding: str) -> None:
    for line in LINES:
        assert units(line, encoding) == editor_units(line, encoding)
