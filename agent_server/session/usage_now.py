"""The context meter and title of a session as they are now, for a client that just loaded it.

During a turn the meter follows each request (`usage_update` from turn/context_step.py). A client that resumes a
session, or reloads it after a restore cut its conversation, would otherwise show nothing, or the numbers of what
was cut, until the next turn: so loading sends an estimate of what the next request will hold, and the title.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .. import acp
from ..config import Settings
from ..context import context_window, estimate_messages, usage
from ..llm.base import ModelInfo, Provider
from ..messages import Message
from ..turn.prompts import system_prompt

if TYPE_CHECKING:
    from ..turn.live_session import Session

log = logging.getLogger(__name__)
MODEL_INFO_WAIT_S = 5.0  # a slow or absent LLM server must not hold the load up


async def session_now(
    session: Session, settings: Settings, provider: Callable[[], Awaitable[tuple[Provider, str, ModelInfo | None]]]
) -> list[acp.SessionUpdate]:
    """`usage_update` (estimated: the system prompt and the history the next request carries) and the title (a
    session without one, e.g. cut back to nothing, has no title to send: clients list it again)."""
    updates: list[acp.SessionUpdate] = [acp.SessionInfoUpdate(title=session.title)] if session.title else []
    try:
        _provider, _model, info = await asyncio.wait_for(provider(), MODEL_INFO_WAIT_S)
    except Exception as exc:  # the meter waits for the next turn then
        log.info("no context estimate on load: %s", exc)
        return updates
    system = system_prompt(session.cwd, settings.agent.profile, settings.agent.system_prompt)
    used = estimate_messages([Message(role="system", content=system), *session.history])
    updates.append(usage(used, context_window(info, settings.llm.context_length)))
    return updates
