"""TextLines against a plain string: random edits (inserts, deletions, replacements across chunk boundaries, newlines
and non-ASCII text) keep the text, the line count and every line lookup equal to what splitting the string gives."""

from __future__ import annotations

import random

from agent_server.text_lines import TextLines

ALPHABET = ["a", "b", " ", "\n", "\n\n", "é", "😋", "\r\n", "xyz\n", ""]


def check(lines: TextLines, text: str) -> None:
    assert lines.text == text and len(lines) == len(text)
    split = text.split("\n")
    assert lines.line_count == len(split)
    starts = [0]
    for part in split[:-1]:
        starts.append(starts[-1] + len(part) + 1)
    for n, part in enumerate(split):
        assert lines.line_start(n) == starts[n]
        assert lines.line_end(n) == starts[n] + len(part)
        assert lines.line(n) == part
    assert lines.line_start(len(split) + 3) == starts[-1]  # past the end: the last line
    first = len(split) // 3
    assert lines.lines(first, first + 4) == split[first : first + 5]


def test_random_edits_match_a_plain_string() -> None:
    rng = random.Random(38)
    for chunk in (2, 7, 64):
        text = "".join(rng.choice(ALPHABET) for _ in range(200))
        lines = TextLines(text, chunk=chunk)
        check(lines, text)
        for _ in range(200):
            start = rng.randint(0, len(text))
            end = min(len(text), start + rng.choice([0, 0, 1, 2, 5, 40]))
            new = "".join(rng.choice(ALPHABET) for _ in range(rng.choice([0, 1, 1, 3, 30])))
            lines.replace(start, end, new)
            text = text[:start] + new + text[end:]
            if rng.random() < 0.1:
                check(lines, text)
            else:  # without the joined text cached: the chunk path of every lookup
                n = rng.randint(0, text.count("\n"))
                assert lines.line(n) == text.split("\n")[n]
        check(lines, text)


def test_edits_that_empty_the_text_and_fill_it_again() -> None:
    lines = TextLines("one\ntwo\n", chunk=2)
    lines.replace(0, len(lines), "")
    check(lines, "")
    lines.replace(0, 0, "x\ny")
    check(lines, "x\ny")


def test_offsets_clamp_to_the_line_and_the_text() -> None:
    lines = TextLines("ab\ncd", chunk=2)
    assert lines.offset(0, 1) == 1 and lines.offset(0, 99) == 2 and lines.offset(1, 0) == 3
    assert lines.offset(7, 0) == 5  # a line past the end: the end of the text
    assert lines.slice(1, 4) == "b\nc" and lines.slice(4, 2) == ""
