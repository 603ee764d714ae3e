"""One tool call, start to finish: show it, check the policy, ask if needed, run it, show the result."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import acp
from ..errors import ToolError
from ..messages import FileDiff, Message, Rejection, ToolCall
from ..tools.base import Tool, ToolContext, ToolResult
from ..tools.editing import write_reviewed
from ..tools.kinds import CHANGING_KINDS, READ_ONLY_KINDS, RUNS_COMMANDS
from .guards.guard import Guard
from .originals import keep_original
from .permission_preview import Preview, ReviewTarget, preview
from .review import BadReview, Reviewed, hunks, read_answer, resolve
from .review import request_meta as review_meta

if TYPE_CHECKING:
    from .turn import Turn

log = logging.getLogger(__name__)

DECLINED = "The user declined this {name} call. Do not retry it as is; adapt your approach or ask the user."
DENIED = "Policy denies {name} here ({why}). Do not retry it; find another way or ask the user."
BLOCKED = "A hook of the user blocked this {name} call: {why}. Do not retry it as is."
MAX_STORED_DIFF = 200_000  # characters of old + new text kept with a tool result for replay


def _error(text: str) -> ToolResult:
    return ToolResult(text=f"Error: {text}", is_error=True)


async def run_tool_calls(turn: Turn, calls: list[ToolCall], guards: Sequence[Guard] = ()) -> list[ToolResult]:
    """Run an answer's calls in order, recording each result (a loop-breaking tool's result is shown as the answer);
    `guards` see each result first (after_tool_result)."""
    results: list[ToolResult] = []
    for index, call in enumerate(calls):
        try:
            result = await run_tool_call(turn, call, guards)
        except asyncio.CancelledError:
            # Keep the history consistent: every call gets a result, even the ones that never ran; and the card of
            # the interrupted call does not stay "in progress" in the editor.
            await turn.relay.send(acp.ToolCallProgress(tool_call_id=call.id, status="failed"))
            for pending in calls[index:]:
                await turn.record(_tool_message(pending, _error("cancelled by the user before it finished.")))
            raise
        await turn.record(_tool_message(call, result))
        if result.ends_turn:
            await turn.relay.send(acp.AgentMessageChunk(content=acp.TextContent(text=result.text)))
        results.append(result)
    return results


def _tool_message(call: ToolCall, result: ToolResult) -> Message:
    """The result as the history keeps it: its text for the model; whether it failed or was rejected, and the edit it
    made, for the turn's later decisions and the replay."""
    message = Message(role="tool", content=result.text, tool_call_id=call.id, tool_name=call.name)
    message.is_error, message.rejected = result.is_error, result.rejected
    diffs = [FileDiff(c.path, c.new_text, c.old_text) for c in result.content if isinstance(c, acp.Diff)]
    if sum(len(d.old_text or "") + len(d.new_text) for d in diffs) <= MAX_STORED_DIFF:
        message.diffs = diffs  # so a replayed session shows the edit, not just its summary
    return message


async def run_tool_call(turn: Turn, call: ToolCall, guards: Sequence[Guard] = ()) -> ToolResult:
    """One call: checked, judged by the hooks and the policy, asked about, run, shown. `guards` see the result before
    the model and the user do (the loop's; a check the turn runs itself passes none)."""
    tool = turn.tools.get(call.name)
    await _announce(turn, call, tool)
    if tool is None:
        names = ", ".join(sorted(turn.tools.names()))
        return await _fail(turn, call, _error(f"unknown tool '{call.name}'. Available tools: {names}"))
    if call.arguments_error:
        why = f"the arguments of {call.name} are not valid JSON ({call.arguments_error}). Send a JSON object."
        return await _fail(turn, call, _error(why))
    problem = turn.tools.validate(tool, call.arguments)
    if problem:
        return await _fail(turn, call, _error(f"invalid arguments for {call.name}: {problem}"))
    if turn.before_tool is not None and (blocked := await turn.before_tool(tool, call)) is not None:
        result = _error(BLOCKED.format(name=call.name, why=blocked))
        return await _fail(turn, call, result, Rejection("policy", f"a hook blocked it: {blocked}"))
    decision = turn.policy.decide(tool, call.arguments, turn.session.cwd)
    if decision == "deny":
        result = _error(DENIED.format(name=call.name, why="a deny rule matches"))
        return await _fail(turn, call, result, POLICY_REJECTION)
    approval = await _approve(turn, call, tool) if decision == "ask" else Approval()
    if approval.refused is not None:
        return approval.refused
    return await _execute(turn, call, tool, approval, guards)


@dataclass
class Approval:
    """The user's answer about one call: what they were shown, their review of it, or the result of a refusal."""

    shown: Preview | None = None
    reviewed: Reviewed | None = None
    refused: ToolResult | None = None


async def _approve(turn: Turn, call: ToolCall, tool: Tool) -> Approval:
    """Ask the user (not twice about the same call in a turn), showing what the call would do."""
    try:
        shown = await preview(_context(turn), tool, call.arguments)
    except ToolError as exc:  # it would fail anyway: say so instead of asking about it
        return Approval(refused=await _fail(turn, call, ToolResult.failed(exc)))
    except Exception:  # a broken preview must not cost the question; ask without it
        log.exception("could not compute the preview of %s", call.name)
        shown = None
    reviewed: Reviewed | None = None
    key = _approval_key(call)
    allowed = turn.answers.get(key)
    if allowed is None:  # the same call again in this turn is not asked twice
        answer = await _ask(turn, call, tool, shown)
        allowed = answer.allowed
        try:
            reviewed = _reviewed(shown, answer)
        except BadReview as exc:
            log.warning("the review in the answer to %s is not usable: %s", call.name, exc)
            result = _error(f"the editor's reviewed version of this change was not usable ({exc}); nothing "
                            "was written")  # fmt: skip
            return Approval(refused=await _fail(turn, call, result))
        if reviewed is None:  # an edited answer is not an answer to the next identical call
            turn.answers[key] = allowed
    if not allowed:
        return Approval(refused=await _fail(turn, call, _error(DECLINED.format(name=call.name)), USER_REJECTION))
    return Approval(shown, reviewed)


async def _execute(turn: Turn, call: ToolCall, tool: Tool, approval: Approval, guards: Sequence[Guard]) -> ToolResult:
    if tool.kind not in READ_ONLY_KINDS:  # any other may change files: keep them first
        await asyncio.to_thread(keep_original, turn.originals, turn.session.roots, call.arguments)
        turn.changes_tried = False
        if turn.checkpoint is not None:
            await turn.checkpoint(tool, call.arguments)  # the workspace as it was, before the turn's first change
    after_edit = await turn.watch_edit(tool, call.arguments) if turn.watch_edit is not None else None
    await turn.relay.send(acp.ToolCallProgress(tool_call_id=call.id, status="in_progress"))
    ctx = _context(turn)
    ctx.call_id = call.id
    shown, reviewed = approval.shown, approval.reviewed
    if reviewed is not None and shown is not None and shown.review is not None:
        result = await _write_reviewed(ctx, shown.review, reviewed)
    else:
        result = await turn.tools.execute(ctx, call.name, call.arguments)
    for guard in guards:
        result = await guard.after_tool_result(turn, call, tool, result)
    if tool.kind in CHANGING_KINDS and not result.is_error:  # surely changed files
        turn.changed = True  # agent.verify_command runs when the model is done
    if after_edit is not None and not result.is_error:
        result.text += await after_edit()  # the errors the change introduced, if any
    if turn.after_tool is not None:
        result = await turn.after_tool(tool, call, result)
    await _finish(turn, call, result)
    if result.plan is not None:
        await turn.relay.send(acp.PlanUpdate(entries=result.plan))
    return result


async def _fail(turn: Turn, call: ToolCall, result: ToolResult, rejected: Rejection | None = None) -> ToolResult:
    """Show a call that did not run (or failed before it could) with its result, and return that result (which
    keeps the rejection, for the history)."""
    result.rejected = rejected
    await _finish(turn, call, result)
    return result


USER_REJECTION = Rejection("user", "you declined this call")
POLICY_REJECTION = Rejection("policy", "a deny rule matches")


def _approval_key(call: ToolCall) -> str:
    return call.name + "\0" + json.dumps(call.arguments, sort_keys=True, default=str)


def _context(turn: Turn) -> ToolContext:
    return ToolContext(
        session_id=turn.session.id, roots=turn.session.roots, client=turn.client, services=turn.services,
        hidden=turn.policy.hidden_files(turn.session.cwd),
    )  # fmt: skip


def _locations(turn: Turn, tool: Tool | None, args: dict[str, Any]) -> list[acp.ToolCallLocation] | None:
    if tool is None or tool.locations is None:
        return None
    try:
        return tool.locations(_context(turn), args) or None
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
    update = acp.ToolCallProgress(
        tool_call_id=call.id,
        status="failed" if result.is_error else "completed",
        content=content,  # type: ignore[arg-type]
        locations=result.locations or None,
        raw_output=result.raw_output,
    )
    if result.rejected is not None:
        update.meta = result.rejected.meta()
    await turn.relay.send(update)


@dataclass(frozen=True)
class Answer:
    allowed: bool
    meta: dict[str, Any] | None = None  # the answer's `_meta`: a file change's review (turn/review.py)


def _reviewed(shown: Preview | None, answer: Answer) -> Reviewed | None:
    """What the user's review of an allowed file change changed in it; None: the proposal as it is."""
    if not answer.allowed or shown is None or shown.review is None:
        return None
    target = shown.review
    parsed = read_answer(answer.meta, len(hunks(target.old, target.new)))
    return None if parsed is None else resolve(target.old, target.new, parsed)


async def _write_reviewed(ctx: ToolContext, target: ReviewTarget, reviewed: Reviewed) -> ToolResult:
    try:
        return await write_reviewed(ctx, target.path, target.old, reviewed.final, reviewed.note)
    except ToolError as exc:  # SandboxError included
        return ToolResult.failed(exc)


async def _ask(turn: Turn, call: ToolCall, tool: Tool, shown: Preview | None) -> Answer:
    """Ask the user, showing the proposed change and why it is asked; remember "always" and "this session" answers.
    A cancelled turn cancels the question."""
    from ..tools.permissions import SESSION_OPTION, permission_options

    request = acp.ToolCallUpdateFields(
        tool_call_id=call.id,
        title=tool.describe(call.arguments),
        kind=tool.kind,
        status="pending",
        content=list(shown.content) if shown and shown.content else None,  # type: ignore[arg-type]
        raw_input=shown.raw_input if shown else call.arguments,
        locations=(shown.locations if shown else None) or _locations(turn, tool, call.arguments),
    )
    try:
        why = turn.policy.why(tool, call.arguments, turn.session.cwd)
    except Exception:  # the reason is a courtesy; the question must still be asked
        log.exception("could not say why %s is asked about", call.name)
        why = []
    if shown is not None and shown.review is not None:  # the editor may open it as a diff the user can change
        request.meta = review_meta(shown.review.old, shown.review.new)
    if why:  # why the user's rules did not let this call through: both editors show `_meta.why`
        request.meta = {**(request.meta or {}), "why": why}
        if tool.kind == RUNS_COMMANDS and request.content:  # ACP clients without _meta show the content
            because = "Asked because:\n" + "\n".join(f"- {w}" for w in why)
            request.content = [*request.content, acp.Content(content=acp.TextContent(text=because))]
    await turn.relay.flush()
    try:
        response = await turn.client.request_permission(turn.session.id, request, permission_options())
    except Exception as exc:  # a client without a permission UI, or a broken answer: that is not a yes
        log.warning("permission request for %s failed (%s); treating it as declined", call.name, exc)
        return Answer(False)
    outcome = response.outcome
    if not isinstance(outcome, acp.SelectedOutcome):
        raise asyncio.CancelledError()
    option = outcome.option_id
    if option in ("allow_always", "reject_always"):
        turn.policy.remember(tool, call.arguments, turn.session.cwd, allow=option == "allow_always")
    if option == SESSION_OPTION and turn.policy.session is not None:
        turn.policy.remember(tool, call.arguments, turn.session.cwd, allow=True, store=turn.policy.session)
    return Answer(option in ("allow_once", SESSION_OPTION, "allow_always"), response.meta)
