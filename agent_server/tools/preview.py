"""What a permission request shows besides the call's title: the proposed change of an edit, the exact command and
folder of a run. A built-in tool that changes something computes its own (`BuiltinTool.preview`, with the same code
as the tool, so "allow" approves exactly what is shown); `turn/permission_preview.py` asks the tool for it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import acp


@dataclass(frozen=True)
class ReviewTarget:
    """The file change the user may review and edit before allowing it (turn/review.py)."""

    path: Path
    old: str | None  # None: a new file
    new: str


@dataclass
class Preview:
    raw_input: Any = None  # the call's input as the request shows it (None: the call's own arguments)
    content: list[acp.Content | acp.Diff] = field(default_factory=list)
    locations: list[acp.ToolCallLocation] | None = None
    review: ReviewTarget | None = None
    # Arguments the preview resolved, shown over the call's own (run_command: the folder the command runs in).
    resolved: dict[str, Any] = field(default_factory=dict)


def first_changed_line(old: str | None, new: str) -> int:
    """The 0-based line where `new` starts to differ from `old` (0 for a new file)."""
    if not old:
        return 0
    for number, (a, b) in enumerate(zip(old.splitlines(), new.splitlines(), strict=False)):
        if a != b:
            return number
    return min(len(old.splitlines()), len(new.splitlines()))


def diff_preview(path: Path, old: str | None, new: str) -> Preview:
    """A file change as a diff the user may review, placed at its first changed line."""
    return Preview(
        content=[acp.Diff(path=str(path), old_text=old, new_text=new)],
        locations=[acp.ToolCallLocation(path=str(path), line=first_changed_line(old, new))],
        review=ReviewTarget(path, old, new),
    )
