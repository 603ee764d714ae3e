"""A code block from the chat merged into a file as an edit: the block replaces the definition it redefines.

The block's first line (`def total(xs):`, `function total(xs) {`) is looked up in the file, exactly or with
edit_matching's forgiving rules; the region it replaces runs to the end of that definition (the next line indented no
deeper, a closing bracket on it included). A block of several definitions replaces from the first to the end of the
last. No single place: None, and the editor asks the user instead. The file keeps its line endings and final newline.
"""

from __future__ import annotations

from ..errors import ToolError
from .edit_matching import find_match

CLOSERS = ("}", ")", "]", "end")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _units(lines: list[str]) -> list[int]:
    """Indexes of the block's top-level lines that start something (not blank, not a closer), at its least indent."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if not filled:
        return []
    least = min(_indent(lines[i]) for i in filled)
    return [i for i in filled if _indent(lines[i]) == least and not lines[i].strip().startswith(CLOSERS)]


def _find_line(lines: list[str], wanted: str, after: int = 0) -> int | None:
    """The one line at or after `after` equal to `wanted` but for indentation; else edit_matching's forgiving
    search of it (other quotes; never a merely close line); None when there is no single such line."""
    key = wanted.strip()
    same = [i for i in range(after, len(lines)) if lines[i].strip() == key]
    if len(same) == 1:
        return same[0]
    if same:
        return None
    try:
        found = find_match("\n".join(lines[after:]), key, key, "the file")
    except ToolError:
        return None
    if found.how == "close match":  # one similar line is not the same definition (mean is not median)
        return None
    head = "\n".join(lines[after:])[: found.start]
    return after + head.count("\n")


def _end_of(lines: list[str], start: int) -> int:
    """The last line of the definition starting at `start`."""
    depth = _indent(lines[start])
    end = start
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if not line.strip():
            continue
        if _indent(line) > depth:
            end = i
            continue
        if line.strip().startswith(CLOSERS):
            end = i
        break
    return end


def merge_block(text: str, block: str) -> str | None:
    """`text` with `block` in place of the definition(s) it redefines; None when no single place is found."""
    crlf = "\r\n" in text
    body = text.replace("\r\n", "\n") if crlf else text
    final_newline = body.endswith("\n")
    lines = body.split("\n")
    if final_newline:
        lines.pop()
    new = block.replace("\r\n", "\n").strip("\n").split("\n")
    units = _units(new)
    if not units:
        return None
    start = _find_line(lines, new[units[0]])
    if start is None:
        return None
    last = start
    if len(units) > 1:
        found = _find_line(lines, new[units[-1]], start + 1)
        if found is None:
            return None
        last = found
    end = _end_of(lines, last)
    shift = _indent(lines[start]) - _indent(new[units[0]])
    if shift > 0:
        pad = lines[start][:shift]
        new = [pad + line if line.strip() else line for line in new]
    merged = "\n".join(lines[:start] + new + lines[end + 1 :]) + ("\n" if final_newline else "")
    return merged.replace("\n", "\r\n") if crlf else merged
