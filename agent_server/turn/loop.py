"""The turn loop: the steps of a turn, and nothing else.

Each round prepares the request, streams the model's answer, reads the calls in it and runs them, or, for an answer
without calls, lets the turn end. At each step the guards have their say (`guards/registry.py`, hook points in
`guards/guard.py`), and what edits look like and when an answer that made them is done is the edit format's
(`edit_formats/`): neither is special-cased here. A turn ends when the model is done and the end-of-turn checks pass,
a loop-breaking tool runs, a guard ends it, the round limit is hit, or it is cancelled. Every message is recorded
(persisted and appended to the history) as soon as it is complete, so the next round sees it and a crash loses at
most the message in flight.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from .. import acp
from ..errors import ContextOverflowError, LLMError
from ..llm.base import ChatRequest, GenerationOptions
from ..llm.server_facts import is_llamacpp
from ..messages import Interruption, Message
from .answer_step import offered_names, read_answer
from .edit_formats.format import EditFormat
from .edit_formats.registry import of as edit_format
from .guards.call_holdback import CallHoldback
from .guards.guard import Answer, Guard, Verdict
from .guards.registry import GUARDS
from .interrupted import unanswered_calls
from .model_call import ModelReply, call_model
from .tool_step import run_tool_calls
from .turn import StopReason, Turn


async def run_turn(turn: Turn) -> StopReason:
    stop = await turn_steps(turn)
    for guard in GUARDS:  # (not when cancelled: the CancelledError passes by)
        await guard.at_close(turn, stop)
    return stop


async def turn_steps(turn: Turn) -> StopReason:
    if unanswered_calls(turn.session.history):
        # An earlier process died mid-call: answer those calls so the model gets a valid history.
        await turn.context.persist(turn.session.history)
    fmt = edit_format(turn.settings.agent.edit_format)
    if (verdict := await heed(turn, lambda g: g.at_start(turn))) is not None and verdict.stop is not None:
        return verdict.stop  # (a verdict here adds to the request: the first round still comes, unless it stops)
    for round_ in range(1, turn.settings.agent.max_rounds + 1):
        turn.round = round_
        if (stop := await one_round(turn, fmt)) is not None:
            return stop
    return await out_of_rounds(turn)


async def one_round(turn: Turn, fmt: EditFormat) -> StopReason | None:
    """One request and what its answer leads to: the turn's end, or None for another round."""
    answer = Answer(ModelReply(message=Message(role="assistant")), await prepare_fitting(turn), fmt)
    if not await ask_model(turn, answer):
        return None  # the prompt overflowed: compacted, asked again
    if (verdict := await heed(turn, lambda g: g.after_reply(turn, answer))) is not None:
        return verdict.stop
    await turn.context.observe(answer.request, answer.reply.usage)
    if turn.context.truncated(answer.reply.usage) and await overflow_retry(turn):
        return None  # the server silently cut the prompt: that answer saw a mangled history
    if (verdict := await heed(turn, lambda g: g.after_answer(turn, answer))) is not None:
        return verdict.stop
    await read_answer(turn, answer)
    if answer.message.tool_calls:
        return await run_calls(turn, answer)
    if (verdict := await heed(turn, lambda g: g.tool_free_answer(turn, answer))) is not None:
        return verdict.stop
    return await done(turn)


async def run_calls(turn: Turn, answer: Answer) -> StopReason | None:
    """Run the answer's calls; then the guards, and the edit format, say whether the turn goes on."""
    if (verdict := await heed(turn, lambda g: g.before_calls(turn, answer))) is not None:
        return verdict.stop
    answer.results = await run_tool_calls(turn, answer.message.tool_calls, GUARDS)
    if any(result.ends_turn for result in answer.results):
        return "end_turn"
    if (verdict := await heed(turn, lambda g: g.after_calls(turn, answer))) is not None:
        return verdict.stop
    after = answer.format.after_calls(turn, answer.message, answer.results)
    if after == "done":  # the answer was the edit (as in Aider): done, once it checks out
        return await done(turn)
    return "end_turn" if after == "stop" else None


async def done(turn: Turn) -> StopReason | None:
    """The model is done: the end-of-turn guards may send it back to work (None: another round)."""
    verdict = await heed(turn, lambda g: g.at_end(turn))
    return "end_turn" if verdict is None else verdict.stop


async def out_of_rounds(turn: Turn) -> StopReason:
    rounds = turn.settings.agent.max_rounds
    note = f"Stopped after {rounds} rounds (agent.max_rounds). Send a message to let the agent continue."
    await turn.relay.send(acp.AgentMessageChunk(content=acp.TextContent(text=f"\n\n{note}")))
    return "max_turn_requests"


async def heed(turn: Turn, ask: Callable[[Guard], Awaitable[Verdict | None]]) -> Verdict | None:
    """The guards at one hook point, in order, each verdict acted on: the first that asks the model again or ends the
    turn is returned, and the guards after it are not asked."""
    for guard in GUARDS:
        verdict = await ask(guard)
        if verdict is None:
            continue
        await act(turn, verdict)
        if verdict.again or verdict.stop is not None:
            return verdict
    return None


async def act(turn: Turn, verdict: Verdict) -> None:
    """Do what a verdict says: tell the model (and show the user what it was told), show the user a note, ask for a
    last summary."""
    if verdict.require_tool:
        turn.require_tool = True
    if verdict.nudge:
        await turn.record(Message(role="user", content=verdict.nudge, nudge=verdict.kind))
        if not verdict.quiet:
            text = f"\n[agent-server: {verdict.nudge}]\n"
            await turn.relay.send(acp.AgentThoughtChunk(content=acp.TextContent(text=text)))
    if verdict.note:
        await turn.relay.send(acp.AgentMessageChunk(content=acp.TextContent(text=verdict.note)))
    if verdict.summarize:
        await final_summary(turn, verdict.summarize)


async def prepare_fitting(turn: Turn) -> ChatRequest:
    try:
        return await prepare(turn)
    except ContextOverflowError:
        # Over the budget before sending anything: compact harder (once per turn) instead of failing.
        if not await overflow_retry(turn):
            raise
        return await prepare(turn)


async def prepare(turn: Turn) -> ChatRequest:
    """Compress history and fit it into the window; pick the tools for this request; the guards see it last."""
    messages, specs, num_ctx = await turn.context.prepare(turn)
    llm = turn.settings.llm
    options = GenerationOptions(
        temperature=llm.temperature,
        max_tokens=llm.max_tokens,
        num_ctx=num_ctx,
        think=llm.think,
        keep_alive=llm.keep_alive,
        progress=is_llamacpp(turn.context.model_info),
    )
    turn.prompt = messages
    request = ChatRequest(model=turn.model, messages=messages, tools=specs, options=options)
    for guard in GUARDS:
        await guard.before_request(turn, request)
    return request


async def ask_model(turn: Turn, answer: Answer) -> bool:
    """Stream the answer to the user and into `answer`; False when the prompt overflowed (compacted: ask again). A
    cancelled or failed call keeps what the user already saw in the history."""
    request, reply = answer.request, answer.reply
    hold = None  # text that may be a call written as text is shown once it is known not to be one
    if turn.recover_calls is not None and not answer.format.edits_in_text:  # (edits in text are the answer itself)
        hold = CallHoldback(offered_names(turn, request, answer.format))
    try:
        guard = turn.settings.agent.repetition_guard
        await call_model(turn.provider, request, turn.relay, reply, guard=guard, hold=hold, status=True)
    except asyncio.CancelledError:
        await keep_partial(turn, reply.message, "cancelled")
        raise
    except ContextOverflowError as exc:
        if not await overflow_retry(turn, exc):
            raise
        return False
    except LLMError:
        await keep_partial(turn, reply.message, "error")  # the server failed mid-answer; the error is reported
        raise
    return True


async def keep_partial(turn: Turn, message: Message, why: Interruption) -> None:
    """What an interrupted answer already showed stays in the history (marked `why`), without its calls."""
    if message.content or message.thinking:
        message.tool_calls = []
        message.interrupted = why
        await turn.record(message)


async def overflow_retry(turn: Turn, error: ContextOverflowError | None = None) -> bool:
    """The prompt did not fit: compact harder and retry the round, once per turn."""
    if not turn.take("overflow", 1):
        return False
    # A server may run with a smaller window than it advertised: its error says which; believe it from now on.
    turn.context.shrink_window(error.n_ctx if error is not None else None)
    note = "the model's context overflowed; compacting the history and retrying"
    await turn.relay.send(acp.AgentThoughtChunk(content=acp.TextContent(text=f"\n[agent-server: {note}]\n")))
    return True


async def final_summary(turn: Turn, ask: str) -> None:
    """One last call without tools, asked with `ask` (the empty-answers guard's last word): it must summarize."""
    await turn.record(Message(role="user", content=ask, nudge="guard"))
    request = await prepare(turn)
    request.tools = []
    reply = ModelReply(message=Message(role="assistant"))
    await call_model(turn.provider, request, turn.relay, reply)
    await turn.record(reply.message)
