"""The turn loop: prepare the context, call the model, run the tools it asked for, repeat.

A turn starts with the user's message and ends when the model answers without tool calls (after the
small-model checks of `analysis.py`), a loop-breaking tool runs, the round limit is hit, or it is cancelled.
Every message is recorded (persisted and appended to the history) as soon as it is complete, so the next
round sees it and a crash loses at most the message in flight.
"""

from __future__ import annotations

import asyncio

from .. import acp
from ..errors import ContextOverflowError, LLMError
from ..llm.base import ChatRequest, GenerationOptions
from ..llm.server_facts import is_llamacpp
from ..messages import Message, ToolCall
from ..tools.editing import UNCHANGED
from . import prompts
from .guards import echoed_instructions, unknown_tools, unlooked_files
from .guards.analysis import analyze
from .guards.call_holdback import CallHoldback
from .guards.dropped_tools import switch_if_dropped
from .guards.loop_guards import end_looping_answer, run_calls_guarded
from .guards.text_call_cap import NOT_RUN, capped, tell_not_run
from .interrupted import unanswered_calls
from .model_call import ModelReply, call_model
from .tool_step import run_tool_call
from .turn import StopReason, Turn
from .verify import verify

MAX_STORED_DIFF = 200_000  # characters of old + new text kept with a tool result for replay


async def run_turn(turn: Turn) -> StopReason:
    cfg = turn.settings.agent
    empty_answers = 0
    if unanswered_calls(turn.session.history):
        # An earlier process died mid-call: answer those calls so the model gets a valid history.
        await turn.context.persist(turn.session.history)
    for round_ in range(1, cfg.max_rounds + 1):
        turn.round = round_
        try:
            request = await prepare(turn)
        except ContextOverflowError:
            # Over the budget before sending anything: compact harder (once per turn) instead of failing.
            if not await overflow_retry(turn):
                raise
            request = await prepare(turn)
        reply = ModelReply(message=Message(role="assistant"))
        try:
            files = cfg.edit_format == "files"  # an answer of fenced files is the edit, never held back as a call
            hold = CallHoldback(offered_names(turn, request)) if turn.recover_calls is not None and not files else None
            await call_model(
                turn.provider, request, turn.relay, reply, guard=cfg.repetition_guard, hold=hold, status=True
            )
        except asyncio.CancelledError:
            if reply.message.content or reply.message.thinking:
                reply.message.tool_calls = []
                reply.message.meta["cancelled"] = True
                await turn.record(reply.message)
            raise
        except ContextOverflowError as exc:
            if not await overflow_retry(turn, exc):
                raise
            continue
        except LLMError:
            # The server failed mid-answer: keep what the user already saw, then report the error.
            if reply.message.content or reply.message.thinking:
                reply.message.tool_calls = []
                reply.message.meta["error"] = True
                await turn.record(reply.message)
            raise
        if not reply.message.tool_calls and await switch_if_dropped(turn, request, reply.usage):
            continue  # the model never saw the tools: ask again with the tools in the prompt
        await turn.context.observe(request, reply.usage)
        if turn.context.truncated(reply.usage) and await overflow_retry(turn):
            continue  # the server silently cut the prompt: that answer saw a mangled history
        if reply.loop is not None:
            return await end_looping_answer(turn, reply)
        offered = await recover(turn, reply.message, request)
        unique_ids(reply.message.tool_calls, turn.session.history)
        await turn.record(reply.message)
        if not reply.message.tool_calls and offered:
            # (off the event loop, as the recovery: the answer's text is as long as the model likes)
            unknown = await asyncio.to_thread(unknown_tools.unknown_calls, reply.message.content, offered)
            if unknown and (stop := await nudge_unknown_call(turn, unknown, offered)):
                return stop
            if unknown:
                continue

        if reply.message.tool_calls:
            empty_answers = 0
            if (stop := await run_calls_guarded(turn, reply.message.tool_calls, call_tools)) is not None:
                return stop
            if await tell_not_run(turn, reply.message):
                continue  # the answer held more calls than run: the model sends the rest
            if files_applied(turn, reply.message):  # the answer was the edit: done, as in Aider, once it checks out
                if (failed := await verify(turn)) is None:
                    return "end_turn"
                await turn.record(Message(role="user", content=failed, meta={"nudge": True, "verify": True}))
            elif files_unchanged(turn, reply.message) and not _take(turn, "unchanged", 1):
                return "end_turn"  # the same file once more: another round would only copy it again
            continue
        if reply.finish == "length":
            return "max_tokens"

        nudge, empty_answers = check_answer(turn, reply.message.content, empty_answers)
        if nudge == "force_summary":
            await final_summary(turn)
            return "end_turn"
        if nudge is None:
            if (failed := await verify(turn)) is None:
                return "end_turn"
            # agent.verify_command failed (its card shows the output): the output goes back to the model.
            await turn.record(Message(role="user", content=failed, meta={"nudge": True, "verify": True}))
            continue
        await turn.record(Message(role="user", content=nudge, meta={"nudge": True}))
        await turn.relay.send(acp.AgentThoughtChunk(content=acp.TextContent(text=f"\n[agent-server: {nudge}]\n")))

    note = f"Stopped after {cfg.max_rounds} rounds (agent.max_rounds). Send a message to let the agent continue."
    await turn.relay.send(acp.AgentMessageChunk(content=acp.TextContent(text=f"\n\n{note}")))
    return "max_turn_requests"


async def prepare(turn: Turn) -> ChatRequest:
    """Compress history and fit it into the window; pick the tools for this request."""
    messages, specs, num_ctx = await turn.context.prepare(turn)
    llm = turn.settings.llm
    options = GenerationOptions(
        temperature=llm.temperature,
        max_tokens=llm.max_tokens,
        num_ctx=num_ctx,
        think=llm.think,
        keep_alive=llm.keep_alive,
        progress=is_llamacpp(turn.context.model_info),
        tool_choice="required" if turn.require_tool and specs else None,
    )
    turn.require_tool = False
    turn.prompt = messages
    return ChatRequest(model=turn.model, messages=messages, tools=specs, options=options)


async def overflow_retry(turn: Turn, error: ContextOverflowError | None = None) -> bool:
    """The prompt did not fit: compact harder and retry the round, once per turn."""
    if not _take(turn, "overflow", 1):
        return False
    # A server may run with a smaller window than it advertised: its error says which; believe it from now on.
    turn.context.shrink_window(error.n_ctx if error is not None else None)
    note = "the model's context overflowed; compacting the history and retrying"
    await turn.relay.send(acp.AgentThoughtChunk(content=acp.TextContent(text=f"\n[agent-server: {note}]\n")))
    return True


def offered_names(turn: Turn, request: ChatRequest) -> set[str]:
    # Prompt tool mode and the files edit format send no `tools`: the offered names are the registry's (the system
    # prompt lists them, or the answer's file blocks become write_file / edit_file calls).
    files = turn.settings.agent.edit_format == "files"
    offered = turn.context.prompt_tools or files
    return {spec.name for spec in request.tools} or (set(turn.tools.names()) if offered else set())


async def recover(turn: Turn, message: Message, request: ChatRequest) -> set[str]:
    """Tool calls the model wrote as text instead of emitting them (only names we offered count). Returns the names
    offered to the model (empty when this turn does not recover calls: no recovery, or no tools offered). Native
    calls are capped like recovered ones (`agent.max_text_calls` per answer): a server's parser is no bound either."""
    if len(message.tool_calls) > turn.settings.agent.max_text_calls:
        message.tool_calls, message.meta[NOT_RUN] = capped(message.tool_calls, turn.settings.agent.max_text_calls)
    names = offered_names(turn, request)
    if turn.recover_calls is None or not names:
        return set()
    if message.tool_calls:
        return names
    try:  # off the event loop: the text is the model's and as long as it likes (a cancel is answered meanwhile)
        calls, not_run = await asyncio.to_thread(turn.recover_calls, message.content, names)
    except asyncio.CancelledError:
        message.meta["cancelled"] = True
        await turn.record(message)  # the answer the user saw stays in the history; none of its calls ran
        raise
    if calls:
        message.tool_calls = calls
        message.meta["recovered_tool_calls"] = True
        if not_run:
            message.meta[NOT_RUN] = not_run
    return names


async def nudge_unknown_call(turn: Turn, calls: list[ToolCall], offered: set[str]) -> StopReason | None:
    """A call of a name that is not a tool: nudge with the real tools; the repeated-call guard (and a cap) end it."""
    verdict, _culprit = turn.repeats.check(calls)
    if verdict == "stop" or not _take(turn, "unknown_tool", unknown_tools.MAX_NUDGES):
        note = unknown_tools.stop_note(calls)
        await turn.relay.send(acp.AgentMessageChunk(content=acp.TextContent(text=f"\n\n{note}")))
        return "max_turn_requests"
    nudge = unknown_tools.nudge_text(calls, offered)
    turn.require_tool = True
    await turn.record(Message(role="user", content=nudge, meta={"nudge": True}))
    await turn.relay.send(acp.AgentThoughtChunk(content=acp.TextContent(text=f"\n[agent-server: {nudge}]\n")))
    return None


async def call_tools(turn: Turn, calls: list[ToolCall]) -> bool:
    """Run the calls in order, recording each result; True if a loop-breaking tool ended the turn."""
    ends = False
    for index, call in enumerate(calls):
        try:
            result = await run_tool_call(turn, call)
        except asyncio.CancelledError:
            # Keep the history consistent: every call gets a result, even the ones that never ran; and the card of
            # the interrupted call does not stay "in progress" in the editor.
            await turn.relay.send(acp.ToolCallProgress(tool_call_id=call.id, status="failed"))
            for pending in calls[index:]:
                await turn.record(_tool_message(pending, "Error: cancelled by the user before it finished."))
            raise
        message = _tool_message(call, result.text)
        diffs = [c.dump() for c in result.content if isinstance(c, acp.Diff)]
        if diffs and sum(len(d.get("oldText") or "") + len(d["newText"]) for d in diffs) <= MAX_STORED_DIFF:
            message.meta["diffs"] = diffs  # so a replayed session shows the edit, not just its summary
        await turn.record(message)
        if result.ends_turn:
            ends = True
            await turn.relay.send(acp.AgentMessageChunk(content=acp.TextContent(text=result.text)))
    return ends


def block_results(turn: Turn, message: Message) -> list[Message]:
    """In `files` format, the results of the calls read from the answer's edit blocks (none otherwise)."""
    if turn.settings.agent.edit_format != "files" or not message.meta.get("recovered_tool_calls"):
        return []
    ids = {c.id for c in message.tool_calls}
    return [m for m in turn.session.history if m.role == "tool" and m.tool_call_id in ids]


def files_applied(turn: Turn, message: Message) -> bool:
    """In `files` format, every edit block of the answer applied cleanly (no result starts with an error)."""
    results = block_results(turn, message)
    return bool(results) and not any(m.content.startswith("Error") for m in results)


def files_unchanged(turn: Turn, message: Message) -> bool:
    """In `files` format, every block of the answer was a file sent back exactly as it is (write_file refused it)."""
    results = block_results(turn, message)
    return bool(results) and all(UNCHANGED in m.content for m in results)


def unique_ids(calls: list[ToolCall], history: list[Message]) -> None:
    """Servers may reuse tool-call ids (a counter per reply); the client and the history need them unique."""
    seen = {c.id for m in history for c in m.tool_calls}
    for call in calls:
        base = call.id or "call"
        candidate, n = base, 1
        while candidate in seen:
            n += 1
            candidate = f"{base}_{n}"
        call.id = candidate
        seen.add(candidate)


def _tool_message(call: ToolCall, text: str) -> Message:
    return Message(role="tool", content=text, tool_call_id=call.id, tool_name=call.name)


def check_answer(turn: Turn, text: str, empty_answers: int) -> tuple[str | None, int]:
    """Decide whether a tool-free answer ends the turn or earns a nudge (each kind capped per turn)."""
    cfg = turn.settings.agent
    said = echoed_instructions.instruction_sentences(turn.context.system_prompt)
    if echoed_instructions.is_echo(text, said) and _take(turn, "echo", 1):
        return echoed_instructions.NUDGE, 0  # the instructions copied back are no answer: asked once more
    verdict = analyze(text).verdict
    if verdict == "empty":
        empty_answers += 1
        if empty_answers >= cfg.empty_answer_limit:
            return "force_summary", empty_answers
        return prompts.CONTINUE_NUDGE, empty_answers
    if cfg.edit_format == "files" and verdict in ("deflection", "incomplete") and _take(turn, "files", 1):
        return prompts.FILES_NUDGE, 0
    if verdict == "deflection" and _take(turn, "deflection", cfg.deflection_retries):
        turn.require_tool = True
        return prompts.DEFLECTION_NUDGE.format(tools=", ".join(sorted(turn.tools.names())[:8])), 0
    # (in the files format the named files were shown in the prompt: the answer has looked at them)
    if verdict == "ok" and "read_file" in turn.tools.names() and cfg.edit_format != "files":
        request, looked = unlooked_files.request_and_tools(turn.session.history)
        files = [] if looked else unlooked_files.named_files(request, turn.session.roots)
        if files and _take(turn, "deflection", cfg.deflection_retries):
            turn.require_tool = True
            return unlooked_files.unread_nudge(files), 0
    if verdict == "incomplete" and not _read_only(turn) and _take(turn, "continue", cfg.continuation_nudges):
        return prompts.CONTINUE_NUDGE, 0
    if cfg.profile == "task" and _take(turn, "reminder", cfg.no_tool_reminders):
        return prompts.NO_TOOL_REMINDER, 0
    return None, 0


def _read_only(turn: Turn) -> bool:
    """A turn that can change nothing (plan and ask modes): an answer that says what would be done next is the plan
    it was asked for, not an action it forgot to take, so "call the tools needed to do it" does not apply."""
    tools = [turn.tools.get(name) for name in turn.tools.names()]
    return not any(t is not None and t.kind in ("edit", "delete", "move", "execute") for t in tools)


def _take(turn: Turn, kind: str, cap: int) -> bool:
    used = turn.nudges.get(kind, 0)
    if used >= cap:
        return False
    turn.nudges[kind] = used + 1
    return True


async def final_summary(turn: Turn) -> None:
    """Two empty answers in a row: one last call without tools that must summarize the work."""
    await turn.record(Message(role="user", content=prompts.FORCE_SUMMARY, meta={"nudge": True}))
    request = await prepare(turn)
    request.tools = []
    reply = ModelReply(message=Message(role="assistant"))
    await call_model(turn.provider, request, turn.relay, reply)
    await turn.record(reply.message)
