"""The window a completion takes from a document: the lines around the cursor, and no more than MAX_SIDE_CHARS on
each side of it however long the lines are."""

from __future__ import annotations

from agent_server.completion.window import MAX_SIDE_CHARS, around, head, lines_around
from agent_server.text_lines import TextLines


def test_the_lines_around_the_cursor_and_its_place_in_them() -> None:
    doc = TextLines("".join(f"line {i}\n" for i in range(100)), chunk=16)
    got = around(doc, 50, 3, 2, 1)
    assert got.text == "line 48\nline 49\nline 50\nline 51"
    assert (got.line, got.character) == (2, 3)
    top = around(doc, 0, 99, 5, 0)  # clamped: the first line, its end
    assert (top.text, top.line, top.character) == ("line 0", 0, 6)


def test_a_line_of_megabytes_is_cut_around_the_cursor() -> None:
    long = "a" * (3 * MAX_SIDE_CHARS)
    doc = TextLines(f"short one\n{long}\nshort two\n")
    got = around(doc, 1, MAX_SIDE_CHARS * 2, 5, 5)
    # The line above did not fit (whole lines or none); the long line is cut on both sides of the cursor.
    assert got.text == "a" * (2 * MAX_SIDE_CHARS) and (got.line, got.character) == (0, MAX_SIDE_CHARS)
    near = around(TextLines(f"short one\n{'b' * 100}"), 1, 50, 5, 5)
    assert near.text == f"short one\n{'b' * 100}" and (near.line, near.character) == (1, 50)


def test_a_ring_chunk_and_a_files_head_read_only_their_lines() -> None:
    doc = TextLines("".join(f"l{i}\n" for i in range(1000)))
    text, line = lines_around(doc, 500, 3)
    assert text.split("\n") == ["l497", "l498", "l499", "l500", "l501", "l502", "l503"] and line == 3
    assert head("a\nb\nc\nd", 2) == "a\nb" and head("a\nb", 5) == "a\nb"
