"""Where an answer's edit blocks are: search/replace blocks and fenced blocks, found line by line in linear time.

The answer is the model's, so it may be hostile: thousands of `<<<<<<< SEARCH` or ``` lines that never close. A
regular expression with a lazy body, tried again at each of them, reads to the end of the text every time (8,000
unclosed markers took 14-22 s). Here the text is split into lines once; the next divider and the next REPLACE line
after every line come from one pass from the end, and a fence's closing line is looked up by its exact text, so
each block costs its own length. The rules are the ones the patterns had:

    <<<<<<< SEARCH        5 to 9 `<`, then the first `=======` line (5 to 9), then the first `>>>>>>> REPLACE`
    ```lang               an opening run of 3+ backticks (or tildes) closed by the first line holding exactly the same
    ```                   indentation and run (trailing spaces allowed)
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

SEARCH = re.compile(r"<{5,9} ?SEARCH")
DIVIDER = re.compile(r"={5,9}[ \t]*")
REPLACE = re.compile(r">{5,9} ?REPLACE")
OPENER = re.compile(r"(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*)")
CLOSER = re.compile(r"(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*")


@dataclass(frozen=True)
class SearchReplace:
    line: int
    """The SEARCH line's index; the block runs to `last`, the REPLACE line."""
    last: int
    old: str
    new: str


@dataclass(frozen=True)
class Fence:
    line: int
    """The opening line's index; `last` is the closing line's."""
    last: int
    info: str
    body: str


class BlockScan:
    """The lines of one answer and where its blocks are."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")  # on `\n` alone, as the patterns' `^` and `$` were
        count = len(self.lines)
        self._search = [-1] * (count + 1)  # the next SEARCH line at or after each line (-1: none)
        self._divider = [-1] * (count + 1)
        self._replace = [-1] * (count + 1)
        self._closers: dict[tuple[str, str], list[int]] = {}
        for i in range(count - 1, -1, -1):
            line = self.lines[i]
            ends = i < count - 1  # the line has its `\n` (SEARCH and divider lines need one)
            self._search[i] = i if ends and SEARCH.match(line) else self._search[i + 1]
            self._divider[i] = i if ends and DIVIDER.fullmatch(line) else self._divider[i + 1]
            self._replace[i] = i if REPLACE.match(line) else self._replace[i + 1]
        for i, line in enumerate(self.lines):
            closer = CLOSER.fullmatch(line)
            if closer:
                self._closers.setdefault((closer["indent"], closer["fence"]), []).append(i)

    def search_replace(self) -> Iterator[SearchReplace]:
        """The search/replace blocks in order; a SEARCH line that no divider and REPLACE line follow is skipped."""
        at = 0
        while (start := self._search[at]) >= 0:
            last = self._block_end(start)
            if last is None:
                at = start + 1
                continue
            divider = self._divider[start + 1]
            yield SearchReplace(start, last, self._join(start + 1, divider), self._join(divider + 1, last))
            at = last + 1

    def fences(self) -> Iterator[Fence]:
        """The fenced blocks in order, each from its opening line to the first line that closes it."""
        at, count = 0, len(self.lines)
        while at < count - 1:  # an opening line needs its `\n`
            found = self._fence_at(at)
            if found is None:
                at += 1
                continue
            yield found
            at = found.last + 1

    def holds_search_replace(self, fence: Fence) -> bool:
        """Whether a whole search/replace block lies inside the fence's body."""
        start = self._search[fence.line + 1]
        if start < 0 or start >= fence.last:
            return False
        last = self._block_end(start)  # the first SEARCH line ends first: no later one ends inside if it does not
        return last is not None and last < fence.last

    def before(self, line: int, count: int = 3) -> list[str]:
        """Up to `count` lines before `line`, blank lines right before it left out (as `rstrip("\\n")` did)."""
        end = line
        while end > 0 and self.lines[end - 1] == "":
            end -= 1
        return self.lines[max(0, end - count) : end]

    def _block_end(self, start: int) -> int | None:
        divider = self._divider[start + 1]
        if divider < 0:
            return None
        last = self._replace[divider + 1]
        return last if last >= 0 else None

    def _fence_at(self, at: int) -> Fence | None:
        opener = OPENER.fullmatch(self.lines[at])
        if opener is None:
            return None
        indent, run = opener["indent"], opener["fence"]
        # A tilde run may also close as a shorter run, the rest of it read as the info (the pattern backtracked so).
        shortest = len(run) if run[0] == "`" else 3
        for size in range(len(run), shortest - 1, -1):
            closers = self._closers.get((indent, run[:size]), [])
            index = bisect.bisect_right(closers, at)
            if index < len(closers):
                last = closers[index]
                info = self.lines[at][len(indent) + size :].lstrip(" \t")
                return Fence(at, last, info, self._join(at + 1, last))
        return None

    def _join(self, start: int, end: int) -> str:
        """Lines `start` to `end` (excluded), each with its `\\n`."""
        return "".join(line + "\n" for line in self.lines[start:end])
