"""What a permission request shows before the choice: the proposed change of an edit, the exact command of a run.

Each built-in tool computes its own preview (`Tool.preview`, from its definition) from the call's real arguments and
the text the user sees now (the unsaved buffer if the file is open, asked of the client when it reads files itself),
with the same code as the tool, so "allow" approves exactly what is shown. A call that would fail anyway (old_text not
found, a cwd outside the workspace) fails here, before anyone is asked.
"""

from __future__ import annotations

from typing import Any

from ..tools.base import Tool, ToolContext
from ..tools.preview import Preview, ReviewTarget

__all__ = ["Preview", "ReviewTarget", "preview"]


async def preview(ctx: ToolContext, tool: Tool, args: dict[str, Any]) -> Preview | None:
    """The request's content for a built-in tool that shows one; None when there is nothing to add.

    Raises ToolError (or SandboxError) exactly when the tool itself would fail on these arguments."""
    if tool.source != "builtin" or tool.preview is None:
        return None
    return await tool.preview(ctx, args)
