"""One tool call, start to finish: show it, check the policy, ask if needed, run it, show the result."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from .. import acp
from ..messages import ToolCall
from ..tools.base import Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from .loop import Turn

log = logging.getLogger(__name__)

DECLINED = "The user declined this {name} call. Do not retry it as is; adapt your approach or ask the user."
DENIED = "Policy denies {name} here ({why}). Do not retry it; find another way or ask the user."


def _error(text: str) -> ToolResult:
    return ToolResult(text=f"Error: {text}", is_error=True)


async def run_tool_call(turn: Turn, call: ToolCall) -> ToolResult:
    result: ToolResult
    tool = turn.tools.get(call.name)
    if tool is None:
        names = ", ".join(sorted(turn.tools.names()))
        result = _error(f"unknown tool '{call.name}'. Available tools: {names}")
        await _announce(turn, call, None)
        await _finish(turn, call, result)
        return result
    await _announce(turn, call, tool)
    if call.arguments_error:
        result = _error(
            f"the arguments of {call.name} are not valid JSON ({call.arguments_error}). Send a JSON object."
        )
        await _finish(turn, call, result)
        return result
    problem = turn.tools.validate(tool, call.arguments)
    if problem:
        result = _error(f"invalid arguments for {call.name}: {problem}")
        await _finish(turn, call, result)
        return result

    decision = turn.policy.decide(tool, call.arguments, turn.session.cwd)
    if decision == "deny":
        result = _error(DENIED.format(name=call.name, why="a deny rule matches"))
        await _finish(turn, call, result)
        return result
    if decision == "ask" and not await _ask(turn, call, tool):
        result = _error(DECLINED.format(name=call.name))
        await _finish(turn, call, result)
        return result

    await turn.relay.send(acp.ToolCallProgress(tool_call_id=call.id, status="in_progress"))
    ctx = ToolContext(session_id=turn.session.id, roots=turn.session.roots, client=turn.client, services=turn.services)
    result = await turn.tools.execute(ctx, call.name, call.arguments)
    await _finish(turn, call, result)
    if result.plan is not None:
        await turn.relay.send(acp.PlanUpdate(entries=result.plan))
    return result


def _locations(turn: Turn, tool: Tool | None, args: dict[str, Any]) -> list[acp.ToolCallLocation] | None:
    if tool is None or tool.locations is None:
        return None
    ctx = ToolContext(session_id=turn.session.id, roots=turn.session.roots, client=turn.client, services=turn.services)
    try:
        return tool.locations(ctx, args) or None
    except Exception:
        return None


async def _announce(turn: Turn, call: ToolCall, tool: Tool | None) -> None:
    await turn.relay.send(
        acp.ToolCallStart(
            tool_call_id=call.id,
            title=tool.describe(call.arguments) if tool else call.name,
            kind=tool.kind if tool else "other",
            status="pending",
            raw_input=call.arguments,
            locations=_locations(turn, tool, call.arguments),
        )
    )


async def _finish(turn: Turn, call: ToolCall, result: ToolResult) -> None:
    content: list[acp.Content | acp.Diff] = list(result.content)
    if not any(isinstance(c, acp.Content) for c in content):
        content.insert(0, acp.Content(content=acp.TextContent(text=result.text)))
    await turn.relay.send(
        acp.ToolCallProgress(
            tool_call_id=call.id,
            status="failed" if result.is_error else "completed",
            content=content,  # type: ignore[arg-type]
            locations=result.locations or None,
            raw_output=result.raw_output,
        )
    )


async def _ask(turn: Turn, call: ToolCall, tool: Tool) -> bool:
    """Ask the user; remember "always" answers. Cancellation of the turn resolves the question as cancelled."""
    from ..tools.permissions import permission_options

    request = acp.ToolCallUpdateFields(
        tool_call_id=call.id,
        title=tool.describe(call.arguments),
        kind=tool.kind,
        status="pending",
        raw_input=call.arguments,
        locations=_locations(turn, tool, call.arguments),
    )
    await turn.relay.flush()
    try:
        response = await turn.client.request_permission(turn.session.id, request, permission_options())
    except Exception as exc:  # a client without a permission UI, or a broken answer: that is not a yes
        log.warning("permission request for %s failed (%s); treating it as declined", call.name, exc)
        return False
    outcome = response.outcome
    if not isinstance(outcome, acp.SelectedOutcome):
        raise asyncio.CancelledError()
    option = outcome.option_id
    if option in ("allow_always", "reject_always"):
        turn.policy.remember(tool, call.arguments, turn.session.cwd, allow=option == "allow_always")
    return option in ("allow_once", "allow_always")
