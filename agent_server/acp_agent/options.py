"""Session modes and configuration options (mode, model) as ACP offers them to the user.

Two modes, both real: `code` (every tool, approvals as configured) and `ask` (only tools that read, search and
think; nothing that writes, runs or reaches an MCP server). The model list comes from the LLM server; while it is
unreachable only the configured model is offered, so `session/new` never waits on it for long.
"""

from __future__ import annotations

import asyncio
import logging

from .. import acp
from ..agent.service import AgentService
from ..agent.session import Session

log = logging.getLogger(__name__)
MODEL_LIST_TIMEOUT_S = 5.0

MODES = [
    acp.SessionMode(id="code", name="Code", description="Reads, edits and runs commands (asking as configured)"),
    acp.SessionMode(id="ask", name="Ask", description="Read-only: reads and searches the code, changes nothing"),
]
MODE_IDS = {m.id for m in MODES}


def mode_of(session: Session) -> str:
    return "ask" if session.read_only else "code"


def set_mode(session: Session, mode_id: str) -> None:
    if mode_id not in MODE_IDS:
        raise ValueError(f"unknown mode {mode_id!r}; the modes are {', '.join(sorted(MODE_IDS))}")
    session.read_only = mode_id == "ask"


def mode_state(session: Session) -> acp.SessionModeState:
    return acp.SessionModeState(current_mode_id=mode_of(session), available_modes=MODES)


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
    options = [
        acp.SessionConfigOption(
            id="mode",
            name="Mode",
            category="mode",
            current_value=mode_of(session),
            options=[acp.SessionConfigSelectOption(value=m.id, name=m.name, description=m.description) for m in MODES],
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
