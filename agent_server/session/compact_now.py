"""Compaction on request (a `/compact` command): the compaction a turn runs at its trigger, run now.

It uses the turn's own pieces (ContextStep's window and token calibration, the same summarizer) and aims at half
of what the conversation takes now: at the trigger a turn aims at `context.compact_to` of the window, which a
conversation well under the trigger already meets, so forcing alone would change nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..context import compact, estimate_messages
from ..errors import StateError
from ..index.chunker import outline_chunks
from ..messages import Message
from ..tools.builtin import builtin_tools
from ..tools.kinds import call_roles
from ..turn.context_step import ContextStep, summarize_with
from ..turn.prompts import system_prompt

if TYPE_CHECKING:
    from ..turn.live_session import Session
    from .service import AgentService


async def compact_session(service: AgentService, session: Session) -> str:
    """Compact `session`'s history now; a line for the user saying what happened."""
    if session.busy:
        raise StateError("a turn is running in this session; compact after it ends")
    await service._refresh(session)  # another process may have added to it
    if not session.history:
        return "Nothing to compact: the conversation is empty."
    provider, model, info = await service.provider()
    settings = service.settings
    system = system_prompt(session.cwd, settings.agent.profile, settings.agent.system_prompt)

    async def persist(history: list[Message]) -> None:
        await service._persist_history(session, history)

    step = ContextStep(settings, system, info, provider.name, persist, outline_chunks)

    async def summarize(text: str, target_tokens: int) -> str:
        return await summarize_with(provider, model, text, target_tokens, settings.context.compaction_timeout_s)

    messages = [Message(role="system", content=system), *session.history]
    now = step.counter.scale(estimate_messages(messages))
    window = min(step.window, max(1, int(now / 2 / settings.context.compact_to)))  # compact_to of it = half of now
    result = await compact(
        messages,
        window,
        settings.context,
        summarize,
        counter=step.counter,
        force=True,
        outliner=outline_chunks,
        roles=call_roles(builtin_tools(settings)),
    )
    if not result.compacted:
        return f"Nothing to compact: the conversation ({result.tokens_before} tokens) is already as short as it gets."
    session.history = list(result.messages[1:])
    await persist(session.history)
    return result.notice[:1].upper() + result.notice[1:] + "."
