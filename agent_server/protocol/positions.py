"""LSP positions in the encoding negotiated at `initialize` (utf-8 for Neovim, utf-16 for VS Code, utf-32 possible).

Inside the server a position's character is a code point index into the line (a Python string index); only the
protocol boundary counts code units. A character inside a multi-unit code point never comes from this module: the
conversion always lands on a code point boundary, so an edit can never split a character in the editor's buffer.
Incoming `didChange` ranges are decoded by pygls with the same encoding (its workspace is built from the same choice).
"""

from __future__ import annotations

from collections.abc import Sequence

ENCODINGS = ("utf-8", "utf-16", "utf-32")


def units(text: str, encoding: str) -> int:
    """How many code units `text` takes in the encoding."""
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def split_lines(text: str) -> list[str]:
    """The lines the server's positions count (split at \\n; a \\r before it stays at the line's end, past any
    character a position points into)."""
    return text.split("\n")


def to_client(lines: Sequence[str], line: int, character: int, encoding: str) -> tuple[int, int]:
    """(line, code point index) as (line, code units). A line past the end is the end of the document."""
    if not lines:
        return 0, 0
    if line >= len(lines):
        return len(lines) - 1, units(lines[-1], encoding)
    text = lines[line]
    return line, units(text[: max(0, min(character, len(text)))], encoding)


def from_client(lines: Sequence[str], line: int, character: int, encoding: str) -> tuple[int, int]:
    """(line, code units) as (line, code point index); a unit inside a code point rounds down to its start."""
    if not lines:
        return 0, 0
    if line >= len(lines):
        return len(lines) - 1, len(lines[-1])
    count = 0
    for index, char in enumerate(lines[line]):
        count += units(char, encoding)
        if count > character:
            return line, index
    return line, len(lines[line])
