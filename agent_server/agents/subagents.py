"""`run_agent`: a profile may hand a self-contained task to another profile, which works in its own fresh context
(the turn loop on a scratch session, as an orchestrator step) and returns its summary, as Claude Code's subagents
and Roo's orchestrator delegate. Offered only to profiles that list it in their tools; a subagent cannot delegate
again, so delegation never recurses."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..tools.base import Tool, ToolContext, ToolResult

RUN_AGENT = "run_agent"
Delegate = Callable[[str, str, str | None], Awaitable[str]]  # (agent, task, parent call id) -> summary


def run_agent_tool(agents: dict[str, str], delegate: Delegate) -> Tool:
    """`agents`: name -> description of the profiles that may be called."""
    listing = "; ".join(f"{name}: {desc}" if desc else name for name, desc in sorted(agents.items()))

    async def handler(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        summary = await delegate(str(args["agent"]), str(args["task"]), ctx.call_id)
        return ToolResult(text=summary)

    return Tool(
        name=RUN_AGENT,
        description=(
            "Hand a self-contained task to another agent, which works in its own fresh context and answers with a "
            f"summary. Say everything it needs in `task`. Agents: {listing}."
        ),
        parameters={
            "type": "object",
            "properties": {
                "agent": {"type": "string", "enum": sorted(agents)},
                "task": {"type": "string", "description": "the task, complete and self-contained"},
            },
            "required": ["agent", "task"],
            "additionalProperties": False,
        },
        handler=handler,
        kind="other",
        default_policy="allow",  # delegating is harmless; what the subagent does is asked about as usual
        title=lambda a: f"Agent {a.get('agent')}: {str(a.get('task', ''))[:60]}",
    )
