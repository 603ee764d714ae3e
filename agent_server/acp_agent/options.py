"""Session modes and configuration options (mode, model) as ACP offers them to the user.

The modes are the agent profiles (agent/modes.py, docs/agents.md): `code`, `ask`, `plan`, `task`, `orchestrate`
and the user's and the workspace's own, chosen per session and remembered with it. The model list comes from the
LLM server; while it is unreachable only the configured model is offered, so `session/new` never waits on it long.
"""

from __future__ import annotations

import asyncio
import logging

from .. import acp
from ..agents import ProfileError
from ..session.service import AgentService
from ..turn.live_session import Session

log = logging.getLogger(__name__)
MODEL_LIST_TIMEOUT_S = 5.0


def mode_state(service: AgentService, session: Session) -> acp.SessionModeState:
    return service.modes.state(session)


async def set_mode(service: AgentService, session: Session, mode_id: str) -> None:
    try:
        await service.set_mode(session.id, mode_id)
    except ProfileError as exc:  # an unknown or broken profile: the caller's mistake, said with the modes there are
        raise ValueError(str(exc)) from exc


async def model_names(service: AgentService) -> tuple[str | None, list[str]]:
    """(current, listed); the configured model alone when the server cannot be asked."""
    try:
        listed = await asyncio.wait_for(service.list_models(), MODEL_LIST_TIMEOUT_S)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the LLM server may be down: sessions still open
        log.info("model list unavailable: %s", exc)
        current = service.settings.llm.model
        return current, [current] if current else []
    names = [str(m["name"]) for m in listed["models"]]
    current = listed["current"]
    if current and current not in names:
        names.insert(0, current)
    return current, names


async def config_options(service: AgentService, session: Session) -> list[acp.SessionConfigOption]:
    modes = mode_state(service, session)
    options = [
        acp.SessionConfigOption(
            id="mode",
            name="Mode",
            category="mode",
            current_value=modes.current_mode_id,
            options=[
                acp.SessionConfigSelectOption(value=m.id, name=m.name, description=m.description)
                for m in modes.available_modes
            ],
        )
    ]
    current, names = await model_names(service)
    if current:
        options.append(
            acp.SessionConfigOption(
                id="model",
                name="Model",
                category="model",
                description="Used by the next prompt, in every session of this agent",
                current_value=current,
                options=[acp.SessionConfigSelectOption(value=n, name=n) for n in names],
            )
        )
    return options
