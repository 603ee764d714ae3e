"""Where edit_file's old_text is in a file, forgiving what small models get wrong, never guessing a place.

Tried in order, each must find exactly one place (more than one is an error that names them, never a guess):

1. the text as given;
2. the text without the line numbers read_file shows (`12<TAB>`), when every line carries one;
3. whole lines equal but for trailing spaces;
4. whole lines equal but for indentation (the new text is re-indented by the same amount, only if the amount is
   the same on every line);
5. a different quote style (' for " and back), where the swap makes exactly one match;
6. a close match: the same number of lines, difflib similarity at least `CLOSE_ENOUGH`, and no other place
   nearly as close (`MARGIN`).

CRLF against LF is handled by the caller (it compares in LF). When nothing matches, the error shows the closest lines
with their line numbers, so the next try can copy them.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ToolError

CLOSE_ENOUGH = 0.88  # difflib ratio of a window of whole lines (stripped) against old_text (stripped)
MARGIN = 0.06  # the runner-up (not overlapping the best) must be this much less similar
SHOWN_LINES = 8  # closest lines shown in the error
_NUMBERED = re.compile(r"^ *\d+\t")


@dataclass(frozen=True)
class Match:
    """old_text is text[start:end]; `new_text` is what replaces it (re-indented if the match was)."""

    start: int
    end: int
    new_text: str
    how: str  # "exact", "line numbers", "trailing spaces", "indentation", "quotes", "close match"


class _Lines:
    """The file as lines with their offsets (each line without its \n)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.starts: list[int] = []
        at = 0
        for line in self.lines:
            self.starts.append(at)
            at += len(line) + 1

    def span(self, first: int, count: int) -> tuple[int, int]:
        """Offsets of lines [first, first+count) without the last line's \n."""
        last = first + count - 1
        return self.starts[first], self.starts[last] + len(self.lines[last])


def find_match(text: str, old_text: str, new_text: str, rel: str) -> Match:
    """The one place old_text means in `text` (both with \n line endings); ToolError if none or several, or if the
    place found already reads as new_text (the edit was made before: "replacing" it would change nothing)."""
    found = _find(text, old_text, new_text, rel)
    if found.how != "exact" and text[found.start : found.end] == found.new_text:
        line = text.count("\n", 0, found.start) + 1
        raise ToolError(
            f"{rel} already has this change: old_text is not in the file, and line {line}, where it would be, already "
            "reads as new_text. Nothing was changed; do not send this edit again (if the task is done, say so)"
        )
    return found


def _find(text: str, old_text: str, new_text: str, rel: str) -> Match:
    count = text.count(old_text)
    if count == 1:
        at = text.index(old_text)
        return Match(at, at + len(old_text), new_text, "exact")
    if count > 1:
        starts = [m.start() for m in re.finditer(re.escape(old_text), text)]
        raise ToolError(_ambiguous(rel, count, [text.count("\n", 0, at) + 1 for at in starts]))

    if _all_numbered(old_text):
        old_plain = "\n".join(_NUMBERED.sub("", line, count=1) for line in old_text.split("\n"))
        new_plain = (
            "\n".join(_NUMBERED.sub("", line, count=1) for line in new_text.split("\n"))
            if _all_numbered(new_text)
            else new_text
        )
        found = _find(text, old_plain, new_plain, rel)
        return Match(found.start, found.end, found.new_text, "line numbers" if found.how == "exact" else found.how)

    lines = _Lines(text)
    old_split = old_text.split("\n")
    old_lines = _trim_blank(old_split)
    given_new, new_text = new_text, _trim_like(new_text, old_split, old_lines)
    if not old_lines:
        raise ToolError(f"old_text is only blank lines; include the lines to change from {rel}")
    keys: tuple[tuple[str, Callable[[str], str]], ...] = (("trailing spaces", str.rstrip), ("indentation", str.strip))
    for how, key in keys:
        places = _line_places(lines.lines, old_lines, key)
        if len(places) > 1:
            raise ToolError(_ambiguous(rel, len(places), [p + 1 for p in places]))
        if len(places) == 1:
            return _line_match(lines, places[0], old_lines, new_text, how, rel)

    if ("'" in old_text) != ('"' in old_text):  # one quote style only: swapping a mix could mean anything
        swapped = _swap_quotes(old_text)
        if text.count(swapped) == 1:
            at = text.index(swapped)
            return Match(at, at + len(swapped), given_new, "quotes")

    best, runner_up = _closest(lines.lines, old_lines)
    if best is not None and best[0] >= CLOSE_ENOUGH and (runner_up is None or best[0] - runner_up[0] >= MARGIN):
        return _line_match(lines, best[1], old_lines, new_text, "close match", rel)
    raise ToolError(_not_found(rel, lines.lines, best, old_lines))


def _all_numbered(text: str) -> bool:
    lines = [line for line in text.split("\n") if line]
    return bool(lines) and all(_NUMBERED.match(line) for line in lines)


def _trim_blank(lines: list[str]) -> list[str]:
    first, last = 0, len(lines)
    while first < last and not lines[first].strip():
        first += 1
    while last > first and not lines[last - 1].strip():
        last -= 1
    return lines[first:last]


def _line_places(lines: list[str], old: list[str], key: Callable[[str], str]) -> list[int]:
    want = [key(line) for line in old]
    have = [key(line) for line in lines]
    n = len(want)
    return [i for i in range(len(have) - n + 1) if have[i : i + n] == want]


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _line_match(lines: _Lines, first: int, old: list[str], new_text: str, how: str, rel: str) -> Match:
    start, end = lines.span(first, len(old))
    have = lines.lines[first : first + len(old)]
    reindented = _reindent(have, old, new_text)
    if reindented is None:
        raise ToolError(
            f"old_text matches lines {first + 1}-{first + len(old)} of {rel} except for the indentation, which "
            "differs unevenly, so new_text cannot be re-indented safely. Copy these lines exactly:\n"
            + _numbered(lines.lines, first, len(old))
        )
    return Match(start, end, reindented, how)


def _reindent(have: list[str], old: list[str], new_text: str) -> str | None:
    """new_text indented the way the file's lines are, mapping old_text's indentation levels onto the file's.

    Works when old_text's levels map one-to-one and in order onto the file's (a constant shift, or 2 spaces where
    the file has 4); None when they do not (e.g. old_text flattened lines that are nested in the file).
    """
    levels: dict[str, str] = {}
    for h, o in zip(have, old, strict=True):
        if h.strip():
            if levels.setdefault(_indent(o), _indent(h)) != _indent(h):
                return None
    if all(k == v for k, v in levels.items()):
        return new_text
    ordered = sorted(levels.items(), key=lambda kv: len(kv[0]))
    if any(len(a[1]) >= len(b[1]) for a, b in itertools.pairwise(ordered)):
        return None  # deeper in old_text but not deeper in the file
    shift = _shift(ordered)
    out = []
    for line in new_text.split("\n"):
        if not line.strip():
            out.append(line)
            continue
        indent = _indent(line)
        mapped = levels.get(indent)
        if mapped is None:
            if shift is None:
                return None
            mapped = shift(indent)
            if mapped is None:
                return None
        out.append(mapped + line[len(indent) :])
    return "\n".join(out)


def _shift(ordered: list[tuple[str, str]]) -> Callable[[str], str | None] | None:
    """For indentation new_text uses that old_text did not: a constant prefix added or removed, or spaces scaled."""
    added = {h[: len(h) - len(o)] for o, h in ordered if h.endswith(o)}
    if len(added) == 1 and all(h.endswith(o) for o, h in ordered):
        prefix = added.pop()
        return lambda indent: prefix + indent
    removed = {o[: len(o) - len(h)] for o, h in ordered if o.endswith(h)}
    if len(removed) == 1 and all(o.endswith(h) for o, h in ordered):
        cut = removed.pop()
        return lambda indent: indent[len(cut) :] if indent.startswith(cut) else None
    spaced = [(o, h) for o, h in ordered if o]
    if (
        spaced
        and all(set(o) == {" "} and set(h) <= {" "} for o, h in spaced)
        and all(h == "" for o, h in ordered if not o)
    ):
        ratios = {len(h) / len(o) for o, h in spaced}
        if len(ratios) == 1:
            ratio = ratios.pop()
            return lambda indent: " " * round(len(indent) * ratio) if set(indent) <= {" "} else None
    return None


def _trim_like(new_text: str, old_split: list[str], old_lines: list[str]) -> str:
    """new_text without as many blank first/last lines as old_text lost (the match covers whole lines only)."""
    lead = next(i for i, line in enumerate(old_split) if line.strip()) if old_lines else 0
    trail = len(old_split) - lead - len(old_lines)
    new = new_text.split("\n")
    while lead and len(new) > 1 and not new[0].strip():
        new.pop(0)
        lead -= 1
    while trail and len(new) > 1 and not new[-1].strip():
        new.pop()
        trail -= 1
    return "\n".join(new)


_QUOTE_SWAP = str.maketrans({"'": '"', '"': "'"})


def _swap_quotes(text: str) -> str:
    return text.translate(_QUOTE_SWAP)


def _closest(lines: list[str], old: list[str]) -> tuple[tuple[float, int] | None, tuple[float, int] | None]:
    """The most similar window of len(old) lines (ratio, first line) and the best one not overlapping it."""
    n = len(old)
    want = "\n".join(line.strip() for line in old)
    stripped = [line.strip() for line in lines]
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(want)
    scored: list[tuple[float, int]] = []
    for i in range(max(1, len(lines) - n + 1)):
        matcher.set_seq1("\n".join(stripped[i : i + n]))
        if matcher.real_quick_ratio() < CLOSE_ENOUGH - MARGIN - 0.2 or matcher.quick_ratio() < 0.3:
            scored.append((0.0, i))
            continue
        scored.append((matcher.ratio(), i))
    if not scored:
        return None, None
    best = max(scored)
    others = [s for s in scored if abs(s[1] - best[1]) >= n]
    return best, (max(others) if others else None)


def _numbered(lines: list[str], first: int, count: int) -> str:
    return "\n".join(f"{n + 1}\t{lines[n]}" for n in range(first, min(len(lines), first + count)))


def _ambiguous(rel: str, count: int, line_numbers: list[int]) -> str:
    where = ", ".join(str(n) for n in line_numbers[:10])
    return (
        f"old_text occurs {count} times in {rel} (at lines {where}); include more surrounding lines so it matches "
        "exactly once."
    )


def _not_found(rel: str, lines: list[str], best: tuple[float, int] | None, old: list[str]) -> str:
    message = f"old_text was not found in {rel}."
    if best is None or best[0] < 0.3:
        return message + " Read the file again (it may have changed) and copy the text exactly."
    first = max(0, best[1] - 1)
    last = min(len(lines), best[1] + max(len(old), 1) + 1)
    last = min(last, first + SHOWN_LINES)
    return (
        f"{message} The closest lines are {best[1] + 1}-{best[1] + max(len(old), 1)}; here with a line around them "
        "(copy old_text from them exactly, without the line numbers):\n" + _numbered(lines, first, last - first)
    )
