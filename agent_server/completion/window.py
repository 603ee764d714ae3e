"""The part of a document a completion can use: the lines around the cursor, cut from the document's chunks.

A completion needs `prefix_lines` lines before the cursor and `suffix_lines` after it, and a ring chunk needs
`chunk_lines` around a line; nothing more of the document is read, so the cost of a request does not grow with the
document (a 50 MB file answers as fast as a small one). Long lines are cut too: at most `MAX_SIDE_CHARS` characters
on each side of the cursor, so one line of megabytes cannot become a megabyte prompt.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..text_lines import TextLines

MAX_SIDE_CHARS = 64_000  # characters before and after the cursor a window may hold (about 16k tokens each)


@dataclass(frozen=True)
class Window:
    text: str  # the lines around the cursor (the first and last may be cut)
    line: int  # the cursor's line in `text`
    character: int  # the cursor's column in that line


def around(doc: TextLines, line: int, character: int, before: int, after: int) -> Window:
    """`before` lines above the cursor's line and `after` below it, at most MAX_SIDE_CHARS each side of the cursor.
    `line` and `character` (a code point column) are clamped to the document."""
    line = min(max(line, 0), doc.line_count - 1)
    line_start = doc.line_start(line)
    cursor = min(line_start + max(character, 0), doc.line_end(line))
    start = doc.line_start(max(0, line - max(before, 0)))
    end = doc.line_end(min(doc.line_count - 1, line + max(after, 0)))
    if cursor - start > MAX_SIDE_CHARS:
        start = cursor - MAX_SIDE_CHARS
        if start < line_start:  # keep whole lines above the cursor: start at the first one that fits
            following = doc.slice(start, line_start).find("\n")
            start = start + following + 1 if following >= 0 else line_start
    end = min(end, cursor + MAX_SIDE_CHARS)
    before_cursor = doc.slice(start, cursor)
    newlines = before_cursor.count("\n")
    column = len(before_cursor) - (before_cursor.rfind("\n") + 1)
    return Window(before_cursor + doc.slice(cursor, end), newlines, column)


def lines_around(doc: TextLines, line: int, count: int) -> tuple[str, int]:
    """(`count` lines on each side of `line` and that line, `line`'s index in them): what a ring chunk is cut from."""
    window = around(doc, line, 0, count, count)
    return window.text, window.line


def head(text: str, count: int) -> str:
    """The first `count` lines of `text`, found without splitting the rest."""
    at = -1
    for _ in range(max(count, 0)):
        at = text.find("\n", at + 1)
        if at < 0:
            return text
    return text[:at]
