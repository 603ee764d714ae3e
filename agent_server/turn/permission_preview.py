"""What a permission request shows before the choice: the proposed change of an edit, the exact command of a run.

The preview is computed from the call's real arguments and the text the user sees now (the unsaved buffer if the
file is open, asked of the client when it reads files itself), with the same code as the tool, so "allow" approves
exactly what is shown. A call that would fail anyway (old_text not found, a cwd outside the workspace) fails here,
before anyone is asked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import acp
from ..errors import ToolError
from ..tools.base import Tool, ToolContext
from ..tools.code_rename import RenameSymbol
from ..tools.editing import plan_edit, proposed_write
from ..tools.sandbox import resolve


@dataclass(frozen=True)
class ReviewTarget:
    """The file change the user may review and edit before allowing it (turn/review.py)."""

    path: Path
    old: str | None  # None: a new file
    new: str


@dataclass
class Preview:
    raw_input: Any
    content: list[acp.Content | acp.Diff] = field(default_factory=list)
    locations: list[acp.ToolCallLocation] | None = None
    review: ReviewTarget | None = None


def _diff(path: Path, old: str | None, new: str, line: int) -> Preview:
    return Preview(
        raw_input=None,
        content=[acp.Diff(path=str(path), old_text=old, new_text=new)],
        locations=[acp.ToolCallLocation(path=str(path), line=line)],
        review=ReviewTarget(path, old, new),
    )


def _first_changed_line(old: str | None, new: str) -> int:
    if not old:
        return 0
    for number, (a, b) in enumerate(zip(old.splitlines(), new.splitlines(), strict=False)):
        if a != b:
            return number
    return min(len(old.splitlines()), len(new.splitlines()))


async def preview(ctx: ToolContext, tool: Tool, args: dict[str, Any]) -> Preview | None:
    """The request's content for a built-in tool that changes something; None when there is nothing to add.

    Raises ToolError (or SandboxError) exactly when the tool itself would fail on these arguments."""
    if tool.source != "builtin":
        return None
    if tool.name == "edit_file":
        plan = await plan_edit(ctx, args)
        shown = _diff(plan.path, plan.original, plan.final, _first_changed_line(plan.original, plan.final))
    elif tool.name == "write_file":
        path, maybe_old, new = await proposed_write(ctx, args)
        shown = _diff(path, maybe_old, new, _first_changed_line(maybe_old, new))
    elif tool.name == "run_command":
        command = str(args["command"])
        cwd = resolve(ctx.roots, str(args.get("cwd") or "."), must_exist=True)
        if not cwd.is_dir():
            raise ToolError(f"cwd '{args.get('cwd')}' is not a directory")
        text = f"$ {command}\n\nin {cwd}"
        return Preview(
            raw_input={**args, "cwd": str(cwd)},
            content=[acp.Content(content=acp.TextContent(text=text))],
            locations=[acp.ToolCallLocation(path=str(cwd))],
        )
    elif isinstance(tool.handler, RenameSymbol):  # every file the rename touches, each as a diff
        content, places = (await tool.handler.plan(ctx, args)).shown()
        return Preview(raw_input=args, content=content, locations=places)
    elif tool.name == "web_fetch":
        from ..tools.web_fetch import fetch_preview

        shown_url = await fetch_preview(tool, args)  # resolves and judges the address: a refusal is not asked about
        return Preview(raw_input=args, content=[acp.Content(content=acp.TextContent(text=shown_url))])
    else:
        return None
    shown.raw_input = args
    return shown
