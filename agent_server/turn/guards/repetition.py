"""The repetition guard for streamed answers: small models fall into loops and repeat one span until the token limit.

Signals, on the recent tail of the stream (checked every `CHECK_EVERY` characters, not per token):

- **a repeated span**: the tail is one span of 1 to `MAX_PERIOD` characters repeated back to back, at least
  `MIN_REPEATS` times over at least `MIN_CHARS` characters (`MIN_CHARS_TINY` for spans of 1 to 3 characters, so
  rulers and table borders pass);
- **a counted loop** (`1. x`, `2. x`, ...): the same with digits folded to `0`, only outside code blocks, for spans
  with words in them and not table rows, and with the higher `MIN_FOLDED_REPEATS` / `MIN_FOLDED_CHARS`: numeric tables
  and lists of servers that differ only in their numbers are real answers;
- **n-gram repetition**: of the last `NGRAM_WORDS` words outside code, the share of distinct word trigrams is below
  `MIN_DISTINCT_TRIGRAMS`; prose is above 0.9, code and tables above 0.5, a generated alias table of the standard
  library 0.19, a loop with small variations falls towards 0.

Inside a fenced code block only exact repeats count, with `CODE_FACTOR` times the thresholds: code repeats itself
legitimately (a dozen identical log lines, test cases, data tables). Identical markdown table rows need as much.
`tests/turn/guards/test_repetition.py` runs the guard over real answers of every kind, the repository and the standard
library, none of which may be cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_PERIOD = 200
MIN_REPEATS = 16
MIN_CHARS = 600
MIN_CHARS_TINY = 1200
MIN_FOLDED_REPEATS = 40
MIN_FOLDED_CHARS = 1500
CODE_FACTOR = 3
LONG_PERIOD = 64  # a repeated block of lines this long needs half the code repeats (and all the characters)
NGRAM_WORDS = 240
MIN_DISTINCT_TRIGRAMS = 0.1
CHECK_EVERY = 128
WINDOW = MAX_PERIOD * MIN_REPEATS * CODE_FACTOR
FOLDED_WINDOW = 4000  # counted loops of spans up to 100 characters
NGRAM_WINDOW = 4000  # NGRAM_WORDS words of prose, with room for table rows

_DIGITS = re.compile(r"[1-9]")


@dataclass(frozen=True)
class Loop:
    """A detected loop: the repeated span (as the model wrote it last), how often, and where the loop starts."""

    span: str
    repeats: int
    start: int  # offset in the whole stream where the repetition begins
    kind: str = "span"  # "span" | "ngram"

    def describe(self) -> str:
        shown = " ".join(self.span.split()) or repr(self.span)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        if self.kind == "ngram":
            return f"the model kept repeating the same phrases (such as “{shown}”)"
        return f"the model repeated “{shown}” {self.repeats} times"


class RepetitionGuard:
    """Feed it the stream's text; `feed` returns a `Loop` once the tail has become a loop."""

    def __init__(self) -> None:
        self._pending: list[str] = []
        self._pending_chars = 0
        self._tail = ""
        self._total = 0  # characters fed so far
        self._line = ""  # the unfinished last line, to track code fences
        self.in_code = False
        self.loop: Loop | None = None

    def feed(self, text: str) -> Loop | None:
        self._pending.append(text)
        self._pending_chars += len(text)
        if self._pending_chars < CHECK_EVERY or self.loop is not None:
            return self.loop
        new = "".join(self._pending)
        self._pending.clear()
        self._total += self._pending_chars
        self._pending_chars = 0
        self._tail = (self._tail + new)[-WINDOW:]
        lines = (self._line + new).split("\n")
        self._line = lines.pop()[-80:]
        for line in lines:
            if line.lstrip().startswith("```"):
                self.in_code = not self.in_code
        self.loop = find_loop(self._tail, self._total - len(self._tail), self.in_code)
        return self.loop


def find_loop(tail: str, offset: int = 0, in_code: bool = False) -> Loop | None:
    """The loop `tail` ends with, if any; `offset` is where `tail` starts in the whole stream."""
    factor = CODE_FACTOR if in_code else 1
    loop = _repeated_span(tail, tail, offset, MIN_REPEATS * factor, MIN_CHARS * factor, MIN_CHARS_TINY * factor)
    if loop is not None or in_code:
        return loop
    recent = tail[-FOLDED_WINDOW:]
    folded = _DIGITS.sub("0", recent)
    if folded != recent:
        tail, offset = recent, offset + len(tail) - len(recent)
        loop = _repeated_span(tail, folded, offset, MIN_FOLDED_REPEATS, MIN_FOLDED_CHARS, MIN_FOLDED_CHARS, True)
    return loop or _ngram_loop(tail[-NGRAM_WINDOW:], offset + max(0, len(tail) - NGRAM_WINDOW))


def _repeated_span(
    tail: str, text: str, offset: int, min_repeats: int, min_chars: int, min_tiny: int, folded: bool = False
) -> Loop | None:
    n = len(text)
    for period in _candidate_periods(text):
        if not text.endswith(text[n - period :], 0, n - period):
            continue
        unit = text[n - period :]
        repeats = 2
        pos = n - 3 * period
        while pos >= 0 and text.startswith(unit, pos):
            repeats += 1
            pos -= period
        covered = repeats * period
        tiny = _primitive_period(unit) <= 3 or unit.isspace()
        # Table rows may repeat (a matrix of zeros): they need as much as code does.
        factor = CODE_FACTOR if "|" in unit and min_repeats < MIN_REPEATS * CODE_FACTOR else 1
        needed = min_repeats * factor
        if period >= LONG_PERIOD and unit.count("\n") >= 2 and "|" not in unit and needed > MIN_REPEATS:
            # A whole block of code (several lines) said again and again (a 0.5B model wrote one 97-character block
            # 37 times in a file): code repeats a line, a table repeats a row, but rarely a long block back to back,
            # and the characters it costs meet the code minimum long before the repeat count does.
            needed = max(MIN_REPEATS, needed // 2)
        if repeats < needed or covered < (min_tiny if tiny else min_chars) * factor:
            continue
        if folded and ("|" in unit or sum(c.isalpha() for c in unit) < 3):
            continue  # a table row or a run of numbers: real data differs only in its numbers
        span = tail[n - period :]
        if "\n" in span[:-1]:  # show it from a line start: "import os\n", not "s\nimport o"
            cut = span.index("\n") + 1
            span = span[cut:] + span[:cut]
        return Loop(span=span, repeats=repeats, start=offset + n - covered)
    return None


def _candidate_periods(text: str, probe_len: int = 8) -> list[int]:
    """The periods worth testing, shortest first: where the last `probe_len` characters occur again within
    `MAX_PERIOD` characters before (a handful in natural text, instead of every period up to `MAX_PERIOD`)."""
    n = len(text)
    if n < 2 * probe_len:
        return []
    probe = text[n - probe_len :]
    out: list[int] = []
    end = n - 1
    while True:
        j = text.rfind(probe, max(0, n - probe_len - MAX_PERIOD), end)
        if j < 0:
            return out
        out.append(n - probe_len - j)
        end = j + probe_len - 1


def _primitive_period(unit: str) -> int:
    """The shortest d with `unit` == `unit[:d]` repeated ("====" -> 1), so a multiple of a tiny span stays tiny."""
    n = len(unit)
    for d in range(1, n):
        if n % d == 0 and unit[:d] * (n // d) == unit:
            return d
    return n


def _ngram_loop(tail: str, offset: int) -> Loop | None:
    # Table rows are made of the same separators and cells by nature: they do not count.
    prose = "\n".join(line for line in tail.split("\n") if not line.lstrip().startswith("|"))
    if len(prose) != len(tail):
        tail, offset = prose, offset + len(tail) - len(prose)  # approximate: the cut is reported at the loop's words
    words = tail.split()
    if len(words) < NGRAM_WORDS:
        return None
    recent = words[-NGRAM_WORDS:]
    trigrams = list(zip(recent, recent[1:], recent[2:], strict=False))
    if len(set(trigrams)) / len(trigrams) >= MIN_DISTINCT_TRIGRAMS:
        return None
    counts: dict[tuple[str, str, str], int] = {}
    for t in trigrams:
        counts[t] = counts.get(t, 0) + 1
    top, repeats = max(counts.items(), key=lambda kv: kv[1])
    start = _word_offset(tail, len(words) - NGRAM_WORDS)
    return Loop(span=" ".join(top), repeats=repeats, start=offset + start, kind="ngram")


def _word_offset(text: str, index: int) -> int:
    """The character offset of the `index`-th whitespace-separated word of `text`."""
    pos = 0
    for i, word in enumerate(text.split()):
        pos = text.index(word, pos)
        if i == index:
            return pos
        pos += len(word)
    return len(text)


def trimmed(text: str, loop: Loop) -> str:
    """What to keep of a looping answer in the history: everything before the loop and one copy of the span, so the
    next request does not show the model its own loop to continue."""
    if loop.kind == "span":
        return text[: loop.start] + loop.span
    return text[: loop.start].rstrip()
