"""One tool call, start to finish: show it, check the policy, ask if needed, run it, show the result."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .. import acp
from ..errors import SandboxError, ToolError
from ..messages import ToolCall
from ..tools.base import Tool, ToolContext, ToolResult
from ..tools.editing import write_reviewed
from .permission_preview import Preview, ReviewTarget, preview
from .review import BadReview, Reviewed, hunks, read_answer, resolve
from .review import request_meta as review_meta

if TYPE_CHECKING:
    from .turn import Turn

log = logging.getLogger(__name__)

UNCHANGING_KINDS = {"read", "search", "think", "fetch"}  # every other tool may change files: checkpoint first
CHANGING_KINDS = {"edit", "delete", "move"}  # tools that surely change files
DECLINED = "The user declined this {name} call. Do not retry it as is; adapt your approach or ask the user."
DENIED = "Policy denies {name} here ({why}). Do not retry it; find another way or ask the user."
BLOCKED = "A hook of the user blocked this {name} call: {why}. Do not retry it as is."


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

    if turn.before_tool is not None and (blocked := await turn.before_tool(tool, call)) is not None:
        result = _error(BLOCKED.format(name=call.name, why=blocked))
        await _finish(turn, call, result, rejected=Rejection("policy", f"a hook blocked it: {blocked}"))
        return result
    decision = turn.policy.decide(tool, call.arguments, turn.session.cwd)
    if decision == "deny":
        result = _error(DENIED.format(name=call.name, why="a deny rule matches"))
        await _finish(turn, call, result, rejected=POLICY_REJECTION)
        return result
    reviewed: Reviewed | None = None
    shown: Preview | None = None
    if decision == "ask":
        try:
            shown = await preview(_context(turn), tool, call.arguments)
        except ToolError as exc:  # it would fail anyway: say so instead of asking about it
            result = _error(str(exc))
            await _finish(turn, call, result)
            return result
        except Exception:  # a broken preview must not cost the question; ask without it
            log.exception("could not compute the preview of %s", call.name)
            shown = None
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
                await _finish(turn, call, result)
                return result
            if reviewed is None:  # an edited answer is not an answer to the next identical call
                turn.answers[key] = allowed
        if not allowed:
            result = _error(DECLINED.format(name=call.name))
            await _finish(turn, call, result, rejected=USER_REJECTION)
            return result

    if turn.checkpoint is not None and tool.kind not in UNCHANGING_KINDS:
        await turn.checkpoint(tool, call.arguments)  # the workspace as it was, before the turn's first change
    after_edit = await turn.watch_edit(tool, call.arguments) if turn.watch_edit is not None else None
    await turn.relay.send(acp.ToolCallProgress(tool_call_id=call.id, status="in_progress"))
    ctx = _context(turn)
    ctx.call_id = call.id
    if reviewed is not None and shown is not None and shown.review is not None:
        result = await _write_reviewed(ctx, shown.review, reviewed)
    else:
        result = await turn.tools.execute(ctx, call.name, call.arguments)
    if (
        not result.is_error
        and (seen := turn.looks.result(call, tool.kind, result.text, turn.round, turn.prompt)) is not result.text
    ):
        result = ToolResult(text=seen)  # the same look as before: a pointer to it, not the whole result again
    if tool.kind in CHANGING_KINDS and not result.is_error:
        turn.changed = True  # agent.verify_command runs when the model is done
    if after_edit is not None and not result.is_error:
        result.text += await after_edit()  # the errors the change introduced, if any
    if turn.after_tool is not None:
        result = await turn.after_tool(tool, call, result)
    await _finish(turn, call, result)
    if result.plan is not None:
        await turn.relay.send(acp.PlanUpdate(entries=result.plan))
    return result


@dataclass(frozen=True)
class Rejection:
    """Why a call did not run although nothing failed: the user said no, or a policy rule did."""

    by: Literal["user", "policy"]
    reason: str

    def meta(self) -> dict[str, Any]:
        # ACP has no "rejected" status; editors read this to show the call as rejected instead of failed.
        return {"rejected": {"by": self.by, "reason": self.reason}}


USER_REJECTION = Rejection("user", "you declined this call")
POLICY_REJECTION = Rejection("policy", "a deny rule matches")


def rejection_of(result_text: str) -> Rejection | None:
    """The rejection a stored tool result records (for replays), from the texts this module writes."""
    for template, rejection in ((DECLINED, USER_REJECTION), (DENIED, POLICY_REJECTION)):
        head = "Error: " + template.split("{name}")[0]
        if result_text.startswith(head):
            return rejection
    return None


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


async def _finish(turn: Turn, call: ToolCall, result: ToolResult, rejected: Rejection | None = None) -> None:
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
    if rejected is not None:
        update.meta = rejected.meta()
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
    except (ToolError, SandboxError) as exc:
        return _error(str(exc))


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
        if tool.name == "run_command" and request.content:  # ACP clients without _meta show the content
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
