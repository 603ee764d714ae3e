"""A search query cut to what locates code: shared by `codebase_search` (tools/codebase.py), which tells the model
what was dropped, and the index (index/query.py, workspace_index.py, quick.py), which shortens before it searches.
It lives on the tools' floor, below the index, so both can use it."""

from __future__ import annotations

import re

from ..errors import ToolError

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # an identifier-like word (search.salience counts them too)
# `pip list` / `conda list` / version dumps: a name then a version; pure noise for locating code.
VERSION_LINE = re.compile(r"^[ \t]*[\w.\-\[\]]+[ \t]+v?\d+(?:\.\w+)+\S*(?:[ \t]+\S+)?[ \t]*$", re.M)
# A query past this is shortened to its distinctive part (shorten_query), and the caller says so.
MAX_QUERY_CHARS = 20_000
# Only a query past this is refused: more than any bug report, log or trace a user pastes.
MAX_RAW_QUERY_CHARS = 2_000_000
_LINE_CHARS = 1_000  # a longer single line (a minified blob, a data dump) keeps its start
_DISTINCTIVE = re.compile(
    r"Traceback|Error|Exception|error:|failed|FAIL|panic|assert|File \"|\.\w{1,5}:\d+|\bat [\w.$]+\(|`|::|\w\(",
)


def shorten_query(text: str, limit: int = MAX_QUERY_CHARS) -> tuple[str, str | None]:
    """`text` cut to at most `limit` characters, keeping what locates code, and a note saying what was dropped
    (None when nothing was). Blank, repeated and version-dump lines go first; then lines with an error, a stack
    frame, a call or a code name are kept over prose, in their original order."""
    if len(text) > MAX_RAW_QUERY_CHARS:
        raise QueryTooLongError(len(text))
    if len(text) <= limit:
        return text, None
    seen: set[str] = set()
    lines: list[tuple[int, int, str]] = []  # (priority, position, line)
    for position, raw in enumerate(text.splitlines()):
        line = " ".join(raw.split())[:_LINE_CHARS]
        if not line or line in seen or VERSION_LINE.match(line) or not WORD.search(line):
            continue
        seen.add(line)
        lines.append((0 if _DISTINCTIVE.search(line) else 1, position, line))
    kept: list[tuple[int, str]] = []
    room = limit
    for _priority, position, line in sorted(lines):
        if len(line) + 1 <= room:
            kept.append((position, line))
            room -= len(line) + 1
    short = "\n".join(line for _, line in sorted(kept))[:limit]
    note = (
        f"the query has {len(text)} characters, more than the {limit} searched: searched with {len(short)} kept "
        "(error lines, stack frames and code names first; blank, repeated and version lines dropped)"
    )
    return short, note


class QueryTooLongError(ToolError):
    def __init__(self, length: int) -> None:
        self.length = length
        super().__init__(
            f"the search query has {length} characters; the limit is {MAX_RAW_QUERY_CHARS}: "
            "search for the distinctive part (an error message, a name, a path) instead"
        )
