"""Where a code tool's symbol is, from a line number and a name (small models count columns badly), and the lines
of a place shown with their numbers.

The position is found here, never taken from the model: the named symbol on the given line, else on a line near
it, else its first use in the file (the result says which line was used). Without a name, the first name on the
line that is not a keyword.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ToolError

MAX_SYMBOL = 200
NEAR = 3  # lines either side searched when the symbol is not on the given line
LINE_CHARS = 200  # a shown line is cut here: minified code must not fill the window
_IDENT = re.compile(r"[^\W\d][\w$]*|\$[\w$]*")
_KEYWORDS = frozenset(
    "def class function func fn return import from export default const let var async await public private "
    "protected static final pub mod use struct enum interface type impl trait new delete if else elif for while "
    "with as in is not and or self this lambda yield package module namespace local end then do val".split()
)


@dataclass(frozen=True)
class Spot:
    """A symbol found in a file: 0-based line and code point column, the line's text, what was used."""

    line: int
    character: int
    line_text: str
    name: str
    note: str = ""  # said to the model when the symbol was not where it was asked


def clean_symbol(symbol: str) -> str:
    """The identifier a model meant: `foo()`, `` `foo` `` and `mod.Class.foo` all mean `foo`."""
    text = symbol.strip().strip("`'\"").strip()
    text = re.sub(r"\(.*\)?$", "", text).strip()
    last = re.split(r"[.:#]+|->", text)[-1].strip() if text else ""
    if not last or len(last) > MAX_SYMBOL or not _IDENT.fullmatch(last):
        raise ToolError(f"'{symbol[:MAX_SYMBOL]}' is not a name; pass the identifier, e.g. 'parse_config'")
    return last


def _occurrence(line_text: str, name: str) -> int | None:
    match = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line_text)
    return match.start() if match else None


def locate(text: str, line: int, symbol: str | None, rel: str) -> Spot:
    """The spot of `symbol` at or near 1-based `line` of `text` (the file `rel`)."""
    lines = text.split("\n")
    if line < 1 or line > len(lines):
        raise ToolError(f"{rel} has {len(lines)} lines; line {line} is not one of them")
    index = line - 1
    if not symbol:
        for match in _IDENT.finditer(lines[index]):
            if match.group() not in _KEYWORDS:
                return Spot(index, match.start(), lines[index], match.group())
        raise ToolError(f"line {line} of {rel} names nothing; pass the symbol you mean")
    name = clean_symbol(symbol)
    at = _occurrence(lines[index], name)
    if at is not None:
        return Spot(index, at, lines[index], name)
    near = sorted(range(max(0, index - NEAR), min(len(lines), index + NEAR + 1)), key=lambda i: abs(i - index))
    for other in [*near, *range(len(lines))]:
        at = _occurrence(lines[other], name)
        if at is not None:
            note = f"`{name}` is not on line {line}; using line {other + 1}, where it is."
            return Spot(other, at, lines[other], name, note)
    raise ToolError(f"`{name}` does not occur in {rel}; check the name, or find it first with search_text")


def shown_line(text: str) -> str:
    text = text.rstrip("\r")
    return text if len(text) <= LINE_CHARS else text[: LINE_CHARS - 1] + "…"


def excerpt(lines: list[str], first: int, last: int) -> str:
    """Lines `first`..`last` (0-based, clamped) with their 1-based numbers, as read_file shows them."""
    lo, hi = max(0, first), min(len(lines) - 1, last)
    return "\n".join(f"{n + 1:>5}\t{shown_line(lines[n])}" for n in range(lo, hi + 1))


def definition_line(lines: list[str], start: int, end: int, name: str) -> int:
    """Within a chunk (0-based, inclusive), the line that defines `name`: a definition keyword before it, else the
    first line that names it, else the chunk's first line."""
    pattern = re.compile(rf"\b(?:def|class|function|func|fn|type|interface|struct|enum|trait|const|let|var)\s+"
                         rf"\*?{re.escape(name)}(?![\w$])")  # fmt: skip
    span = range(max(0, start), min(len(lines), end + 1))
    found = next((i for i in span if pattern.search(lines[i])), None)
    if found is None:
        found = next((i for i in span if _occurrence(lines[i], name) is not None), start)
    return found


def uses(lines: list[str], name: str) -> list[int]:
    """The 0-based lines where `name` occurs as a whole word."""
    return [i for i, text in enumerate(lines) if _occurrence(text, name) is not None]
