"""Do no harm: a proposed write judged against the file as it is, before it lands and before anyone is asked.

Every change to a file's content (write_file, edit_file's resulting text, and so the `files` edit format's blocks,
which become those calls) passes here from `editing.py`, which the permission preview shares: a refused write is
an error the model reads, never a question to the user. Two rules:

- **Syntax.** A file that parses now and would not parse after the write is refused, with the parser's line and
  message (`syntax_check`), so the model can fix it. A new file that does not parse is refused too (it was meant to
  be code); a file that did not parse before is not judged.
- **Wholesale replacement.** A file of `MIN_LINES` lines or more of which the new text keeps fewer than `MIN_KEPT`
  (a re-typed 400-line module for a one-line fix, a README overwritten with something else) is refused, unless the
  user's request asked to rewrite that file (it names it and says rewrite, replace, convert...) or this turn
  created it. Lines count stripped and wherever they are in the new text: indenting or moving code keeps it.

The request is the turn's (`begin_turn`, set in the turn's task); without a turn (a direct call), nothing was asked
to be rewritten.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from . import syntax_check
from .syntax_check import Parsed, ParseError

MIN_LINES = 30  # non-blank lines: a smaller file is cheap to read again and rewriting it whole is how it is fixed
MIN_KEPT = 0.5  # real whole-file fixes keep nearly every line (one changed line of 400 keeps 399)
MAX_REQUEST = 20_000  # characters of the request read for its words

REWRITE = re.compile(
    r"\b(re-?writ\w*|rewrote|replac\w*|overwrit\w*|restructur\w*|reorgani[sz]\w*|convert\w*|translat\w*|"
    r"port(?:s|ed|ing)?|migrat\w*|redo|re-?implement\w*|from scratch|start over|regenerat\w*|refactor\w*|"
    r"reformat\w*|simplif\w*)\b",
    re.I,
)
FENCED = re.compile(r"^[ \t]*(```+|~~~+).*?^[ \t]*\1[ \t]*$", re.M | re.S)


@dataclass
class TurnWrites:
    """What the turn's writes are judged against: the user's request, and the files this turn created."""

    request: str = ""
    created: set[Path] = field(default_factory=set)


_TURN: ContextVar[TurnWrites | None] = ContextVar("turn_writes", default=None)


def begin_turn(request: str) -> None:
    """A turn starts (called in its task): its writes are judged against `request`."""
    _TURN.set(TurnWrites(request[:MAX_REQUEST]))


def note_created(path: Path) -> None:
    """This turn created `path`: rewriting it whole later in the turn is the model's own business."""
    scope = _TURN.get()
    if scope is not None:
        scope.created.add(path)


@dataclass(frozen=True)
class Verdict:
    """The judgement of one proposed write. `refused` names the rule that refuses it (None: it may land); `reason`
    is what the model is told."""

    refused: Literal["syntax", "wholesale"] | None = None
    reason: str = ""
    problem: ParseError | None = None  # syntax: where the new text stops parsing
    kept: int = 0  # wholesale: of the file's `total` non-blank lines, how many the new text keeps
    total: int = 0


LANDS = Verdict()


async def judge_write(path: Path, rel: str, old: str | None, new: str) -> Verdict:
    """`judge` for a write of this turn, in a worker thread (parsing a large file takes a while)."""
    scope = _TURN.get() or TurnWrites()
    return await asyncio.to_thread(judge, rel, old, new, scope.request, path in scope.created)


def judge(rel: str, old: str | None, new: str, request: str = "", created: bool = False) -> Verdict:
    """Whether `new` may replace `old` (None: a new file) as the content of `rel`. Blocking."""
    if old is not None and not created:
        kept, total = kept_lines(old, new)
        if total >= MIN_LINES and kept < total * MIN_KEPT and not asks_rewrite(request, rel):
            return Verdict("wholesale", _wholesale(rel, kept, total), kept=kept, total=total)
    after = syntax_check.check(rel, new)
    if not isinstance(after, ParseError):
        return LANDS
    if old is None:
        return Verdict("syntax", _broken_new(rel, after), problem=after)
    if isinstance(syntax_check.check(rel, old), Parsed):
        return Verdict("syntax", _broken(rel, after), problem=after)
    return LANDS  # it did not parse before either: not this write's doing


def kept_lines(old: str, new: str) -> tuple[int, int]:
    """(how many of `old`'s non-blank lines `new` still has, how many `old` has), lines compared stripped."""
    before = Counter(line.strip() for line in old.splitlines() if line.strip())
    after = Counter(line.strip() for line in new.splitlines() if line.strip())
    return sum((before & after).values()), sum(before.values())


def asks_rewrite(request: str, rel: str) -> bool:
    """The request names the file (its path, its name, or its name without the suffix) and asks for a rewrite.
    Fenced blocks (attached files, pasted code) are not the user's words."""
    words = FENCED.sub(" ", request[:MAX_REQUEST]).replace("\\", "/")
    if not REWRITE.search(words):
        return False
    name = PurePosixPath(rel).name
    stem = PurePosixPath(rel).stem
    spellings = [rel, name] + ([stem] if len(stem) >= 3 else [])
    return any(re.search(rf"(?<![\w.-]){re.escape(s)}(?![\w-]|\.\w)", words, re.I) for s in spellings)


def _wholesale(rel: str, kept: int, total: int) -> str:
    return (
        f"this write would replace most of {rel}: it keeps {kept} of its {total} lines, and the request did not ask "
        f"to rewrite {rel}. Nothing was written. Send only the change: an edit_file call with the lines as they are "
        "(old_text) and as they should be (new_text), or a SEARCH/REPLACE block; or the whole file with every line "
        "that should stay kept as it is"
    )


def _broken(rel: str, problem: ParseError) -> str:
    return (
        f"after this write {rel} would no longer parse as {problem.language} ({problem.describe()}); it parses now. "
        "Nothing was written. Fix that and send the change again"
    )


def _broken_new(rel: str, problem: ParseError) -> str:
    return (
        f"{rel} would not parse as {problem.language} ({problem.describe()}). Nothing was written. Fix that and "
        "send the file again"
    )
