"""Seed 002's orchestrator: plan with one model, run each step with another in a small fresh context, then sum up.

The point is small windows: a step's sub-turn sees only the request, the plan and the earlier steps' summaries,
never the whole conversation, so each of its requests fits a 4k window even when the task does not. Each step is
the ordinary turn loop (`run_turn`) on a scratch session: approvals, checkpoints, cancellation and the tools all
work as in any turn. The plan streams to the client as ACP `plan` updates; each step is a tool card whose own tool
calls carry `_meta.parentToolCallId`; the synthesis streams as the answer.
"""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import acp
from ..client_contract import AgentClient, ClientFeatures, FileChange, ProgressReporter
from ..context import answer_reserve, choose_num_ctx, estimate_messages
from ..llm.base import ChatRequest, GenerationOptions
from ..llm.tagged import Tagged
from ..messages import Message, TextDelta, ToolCall
from ..turn.live_session import Session
from ..turn.loop import run_turn
from ..turn.model_call import ModelReply, call_model
from ..turn.relay import UpdateRelay
from ..turn.turn import StopReason, Turn

PLANNER_PROMPT = """You plan coding tasks for a small assistant that works one step at a time.
Read the request and answer ONLY with a numbered list of at most {steps} short, concrete steps (one line each,
naming files or functions when you know them). No introduction, no code."""
STEP_PROMPT = """Overall request: {request}

Plan:
{plan}

{done}Your job now is step {number} only: {step}
Do this step with your tools, then answer with a short summary (2-4 sentences) of what you did and found."""
SYNTHESIS_PROMPT = """Request: {request}

The steps were carried out; their summaries:
{summaries}

Write the final answer for the user: what was done, the result, and anything left open. Be brief."""
_STEP_LINE = re.compile(r"^\s*(?:\d+\s*[.):-]|[-*•])\s+(.+?)\s*$")
STEP_TOOL = "run_step"


def parse_plan(text: str, limit: int) -> list[str]:
    """Numbered or bulleted lines; a plan the model wrote as prose becomes one step."""
    steps = [m.group(1).strip() for line in text.splitlines() if (m := _STEP_LINE.match(line))]
    steps = [s for s in steps if s][:limit]
    return steps or ([text.strip()[:500]] if text.strip() else [])


def _options(
    turn: Turn, messages: list[Message], temperature: float | None, think: bool | str | None
) -> GenerationOptions:
    """The session's sticky num_ctx for Ollama, as every other request of the session sends (a changed num_ctx makes
    Ollama reload the model, and none means its small default, which silently truncates)."""
    num_ctx = None
    if turn.context.provider_name == "ollama":
        wanted = estimate_messages(messages) + answer_reserve(turn.context.window, turn.settings.context.min_remaining)
        num_ctx = choose_num_ctx(turn.context.window, min(wanted, turn.context.window), turn.session.num_ctx)
        turn.session.num_ctx = num_ctx
    return GenerationOptions(
        temperature=temperature, think=think, num_ctx=num_ctx, keep_alive=turn.settings.llm.keep_alive
    )


async def ask_model(turn: Turn, model: str, messages: list[Message]) -> str:
    """A call whose text is not shown as it streams (the plan): collected, then used."""
    request = ChatRequest(model=model, messages=messages, options=_options(turn, messages, 0.2, False))
    parts: list[str] = []
    stream = turn.provider.stream_chat(request)
    try:
        async for event in stream:
            if isinstance(event, TextDelta):
                parts.append(event.text)
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
    return "".join(parts)


class StepClient:
    """The client as a step's sub-turn sees it: the step's answer text becomes thought (the card shows its
    summary), and its tool cards name the step as their parent."""

    def __init__(self, inner: AgentClient, step_call_id: str) -> None:
        self.inner = inner
        self.step_call_id = step_call_id
        self.features: ClientFeatures = inner.features

    async def session_update(self, session_id: str, update: acp.SessionUpdate) -> None:
        if isinstance(update, acp.AgentMessageChunk):
            update = acp.AgentThoughtChunk(content=update.content)
        elif isinstance(update, acp.ToolCallStart | acp.ToolCallProgress):
            update = update.model_copy(update={"meta": {**(update.meta or {}), "parentToolCallId": self.step_call_id}})
        await self.inner.session_update(session_id, update)

    async def request_permission(
        self, session_id: str, tool_call: acp.ToolCallUpdateFields, options: list[acp.PermissionOption]
    ) -> acp.RequestPermissionResponse:
        return await self.inner.request_permission(session_id, tool_call, options)

    async def apply_edit(self, label: str, changes: list[FileChange]) -> bool:
        return await self.inner.apply_edit(label, changes)

    async def save_documents(self, paths: list[Path]) -> None:
        await self.inner.save_documents(paths)

    def open_document_text(self, path: Path) -> str | None:
        return self.inner.open_document_text(path)

    async def show_message_request(self, message: str, actions: list[str]) -> str | None:
        return await self.inner.show_message_request(message, actions)

    async def log(self, level: str, message: str) -> None:
        await self.inner.log(level, message)

    async def begin_progress(self, title: str, cancellable: bool = True) -> ProgressReporter:
        return await self.inner.begin_progress(title, cancellable)

    def __getattr__(self, name: str) -> Any:  # optional client methods (fs, terminal) pass through
        return getattr(self.inner, name)


async def run_subturn(
    turn: Turn, prompt: str, model: str, context: Any, parent_call_id: str, **overrides: Any
) -> tuple[str, StopReason]:
    """The turn loop on a scratch session that starts from `prompt` alone; returns its last answer and stop reason.
    Its messages stay out of the session's history; its updates show under the card `parent_call_id`.
    `overrides` replace Turn fields (tools, policy, settings) for a subagent of another profile."""
    scratch = Session(id=turn.session.id, cwd=turn.session.cwd, roots=turn.session.roots, mode=turn.session.mode)
    scratch.history.append(Message(role="user", content=prompt))
    client = StepClient(turn.client, parent_call_id)

    async def record(message: Message) -> None:
        scratch.history.append(message)

    sub = dataclasses.replace(
        turn,
        session=scratch,
        client=client,
        model=model,
        context=context,
        record=record,
        relay=UpdateRelay(client, turn.session.id),
        nudges={},
        provider=Tagged(turn.provider, purpose="subagent"),  # after the user's own turn on a shared server
        **overrides,
    )
    stop = await run_turn(sub)
    answers = [m.content for m in scratch.history if m.role == "assistant" and m.content.strip()]
    summary = answers[-1].strip() if answers else "(it ended without a summary)"
    if stop == "max_turn_requests":
        summary += " (stopped at the round limit)"
    return summary, stop


async def orchestrate(
    turn: Turn,
    request_text: str,
    planner: str,
    worker: str,
    max_steps: int,
    fresh_context: Callable[[], Any],
) -> StopReason:
    """Plan → steps → synthesis, recording each step's call and summary in the session's history."""
    plan_text = await ask_model(
        turn,
        planner,
        [
            Message(role="system", content=PLANNER_PROMPT.format(steps=max_steps)),
            Message(role="user", content=request_text),
        ],
    )
    steps = parse_plan(plan_text, max_steps)
    entries = [acp.PlanEntry(content=s) for s in steps]
    await turn.relay.send(acp.PlanUpdate(entries=entries))
    summaries: list[str] = []
    plan_lines = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(steps))
    for index in range(len(steps)):
        entries[index] = entries[index].model_copy(update={"status": "in_progress"})
        await turn.relay.send(acp.PlanUpdate(entries=list(entries)))
        summary, stop = await _run_step(turn, request_text, plan_lines, steps, summaries, index, worker, fresh_context)
        summaries.append(summary)
        entries[index] = entries[index].model_copy(update={"status": "completed"})
        await turn.relay.send(acp.PlanUpdate(entries=list(entries)))
        if stop == "cancelled":
            return "cancelled"
    done = "\n".join(f"{i + 1}. {s}: {summary}" for i, (s, summary) in enumerate(zip(steps, summaries, strict=True)))
    messages = [
        Message(role="system", content=turn.context.system_prompt),
        Message(role="user", content=SYNTHESIS_PROMPT.format(request=request_text, summaries=done)),
    ]
    llm = turn.settings.llm
    synthesis = ChatRequest(
        model=planner, messages=messages, options=_options(turn, messages, llm.temperature, llm.think)
    )
    reply = ModelReply(message=Message(role="assistant"))
    await call_model(turn.provider, synthesis, turn.relay, reply)
    await turn.record(reply.message)
    return "max_tokens" if reply.finish == "length" else "end_turn"


async def _run_step(
    turn: Turn,
    request_text: str,
    plan_lines: str,
    steps: list[str],
    summaries: list[str],
    index: int,
    worker: str,
    fresh_context: Callable[[], Any],
) -> tuple[str, StopReason]:
    step = steps[index]
    call = ToolCall(id=f"step_{uuid.uuid4().hex[:10]}", name=STEP_TOOL, arguments={"step": index + 1, "task": step})
    await turn.record(Message(role="assistant", tool_calls=[call]))
    await turn.relay.send(
        acp.ToolCallStart(
            tool_call_id=call.id,
            title=f"Step {index + 1}: {step}",
            kind="other",
            status="in_progress",
            raw_input=call.arguments,
        )
    )
    done = "".join(f"Step {i + 1} ({steps[i]}) is done: {s}\n" for i, s in enumerate(summaries))
    prompt = STEP_PROMPT.format(
        request=request_text,
        plan=plan_lines,
        done=f"Done so far:\n{done}\n" if done else "",
        number=index + 1,
        step=step,
    )
    stop: StopReason = "end_turn"
    summary = "(the step ended without a summary)"
    try:
        summary, stop = await run_subturn(turn, prompt, worker, fresh_context(), call.id)
    finally:
        await turn.record(Message(role="tool", content=summary, tool_call_id=call.id, tool_name=STEP_TOOL))
        await turn.relay.send(
            acp.ToolCallProgress(
                tool_call_id=call.id,
                status="completed",
                content=[acp.Content(content=acp.TextContent(text=summary))],
            )
        )
    return summary, stop
