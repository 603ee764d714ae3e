"""The user's review of a proposed file change: the hunks a permission request offers, and what the answer changed.

A permission request for edit_file or write_file carries `_meta.review` with the change's hunks (line ranges of the
text now and of the proposal). The answer may carry `_meta.review` too: `rejectedHunks` (indexes of hunks the user
turned down) and `content` (the text the user wants written instead of the proposal, edited in the editor's diff).
Only the content of the file asked about can change: the answer names no path, the write goes to the path the
policy already checked.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

MAX_CONTENT = 16_000_000  # as edit_file's own limit: a bigger "edited" text is not an edit of this file
NOTE_DIFF_CHARS = 1_500  # the model's window is small: the user's changes are shown, bounded
REVIEW_KEY = "review"


@dataclass(frozen=True)
class Hunk:
    """One changed range: 0-based line numbers in the text now (`old_*`) and in the proposal (`new_*`)."""

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int

    def wire(self) -> dict[str, int]:
        return {
            "oldStart": self.old_start,
            "oldLines": self.old_lines,
            "newStart": self.new_start,
            "newLines": self.new_lines,
        }


def _lines(text: str | None) -> list[str]:
    return (text or "").splitlines(keepends=True)


def hunks(old: str | None, new: str) -> list[Hunk]:
    matcher = difflib.SequenceMatcher(a=_lines(old), b=_lines(new), autojunk=False)
    return [Hunk(i1, i2 - i1, j1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def apply_hunks(old: str | None, new: str, all_hunks: list[Hunk], rejected: set[int]) -> str:
    """`old` with every hunk but the rejected ones applied (all of them: `new`)."""
    before, after = _lines(old), _lines(new)
    out: list[str] = []
    at = 0
    for index, hunk in enumerate(all_hunks):
        out.extend(before[at : hunk.old_start])
        if index in rejected:
            out.extend(before[hunk.old_start : hunk.old_start + hunk.old_lines])
        else:
            out.extend(after[hunk.new_start : hunk.new_start + hunk.new_lines])
        at = hunk.old_start + hunk.old_lines
    out.extend(before[at:])
    return "".join(out)


def request_meta(old: str | None, new: str) -> dict[str, Any]:
    return {REVIEW_KEY: {"hunks": [h.wire() for h in hunks(old, new)]}}


class ReviewAnswer(BaseModel):
    """`_meta.review` of a permission answer: what the user changed in the proposal before allowing it."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", strict=True)

    content: str | None = Field(default=None, max_length=MAX_CONTENT)
    rejected_hunks: list[int] = Field(default_factory=list, max_length=10_000)


class BadReview(ValueError):
    """The answer's review could not be used; nothing is written."""


def read_answer(meta: dict[str, Any] | None, hunk_count: int) -> ReviewAnswer | None:
    """The review in an answer's `_meta`, None when there is none. Raises BadReview on a malformed one."""
    raw = (meta or {}).get(REVIEW_KEY)
    if raw is None:
        return None
    try:
        answer = ReviewAnswer.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "review"
        raise BadReview(f"{where}: {first['msg']}") from None
    wrong = [i for i in answer.rejected_hunks if not 0 <= i < hunk_count]
    if wrong:
        raise BadReview(f"rejectedHunks: no hunk {wrong[0]} (the change has {hunk_count})")
    return answer


@dataclass(frozen=True)
class Reviewed:
    """The text to write after the user's review and what to tell the model about it."""

    final: str
    note: str


def _bounded_diff(a: str, b: str, name_a: str, name_b: str) -> str:
    lines = list(difflib.unified_diff(_lines(a), _lines(b), name_a, name_b, n=1))
    out: list[str] = []
    used = 0
    for number, line in enumerate(lines):
        line = line if line.endswith("\n") else line + "\n"
        if used + len(line) > NOTE_DIFF_CHARS:
            out.append(f"... ({len(lines) - number} more diff lines)\n")
            break
        out.append(line)
        used += len(line)
    return "".join(out)


def resolve(old: str | None, proposed: str, answer: ReviewAnswer) -> Reviewed | None:
    """The reviewed outcome; None when the user allowed the proposal as it is."""
    all_hunks = hunks(old, proposed)
    rejected = set(answer.rejected_hunks)
    expected = apply_hunks(old, proposed, all_hunks, rejected)
    final = expected if answer.content is None else answer.content
    if "\r\n" in (old or proposed) and "\r\n" not in final:
        final = final.replace("\n", "\r\n")  # editors hand text back with \n; keep the file's line endings
        expected = expected if "\r\n" in expected else expected.replace("\n", "\r\n")
    if not rejected and final == proposed:
        return None
    parts: list[str] = []
    if rejected:
        everything = set(range(len(all_hunks)))
        shown = sorted(rejected)
        parts.append(
            f"The user rejected {len(shown)} of the {len(all_hunks)} hunks of your change "
            f"(hunk {', '.join(str(i + 1) for i in shown)}); they were not written:\n"
            + _bounded_diff(old or "", apply_hunks(old, proposed, all_hunks, everything - rejected), "now", "rejected")
        )
    if final != expected:
        parts.append(
            "The user edited your proposal before allowing it; what was written differs from it by:\n"
            + _bounded_diff(expected, final, "proposed", "written")
        )
    parts.append("The file now holds the user's version: read it before editing it again.")
    return Reviewed(final=final, note="\n".join(parts))
