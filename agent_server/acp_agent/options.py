"""Session modes and configuration options (mode, model, thinking, thought level) as ACP offers them to the user.

The modes are the agent profiles (agent/modes.py, docs/agents.md): `code`, `ask`, `plan`, `task`, `orchestrate`
and the user's and the workspace's own, chosen per session and remembered with it. The model list comes from the
LLM server; while it is unreachable only the configured model is offered, so `session/new` never waits on it long.
Thinking (a switch) and the thought level (a dropdown) set `llm.think`, like the model for every session of the
agent process: one endpoint is shared.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

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
    current, choices = await model_choices(service)
    return current, list(choices)


async def model_choices(service: AgentService) -> tuple[str | None, dict[str, str | None]]:
    """(current, listed name -> load state): the state is llama.cpp's router's (`loaded`, `unloaded`...), else None."""
    try:
        listed = await asyncio.wait_for(service.list_models(), MODEL_LIST_TIMEOUT_S)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the LLM server may be down: sessions still open
        log.info("model list unavailable: %s", exc)
        current = service.settings.llm.model
        return current, {current: None} if current else {}
    choices: dict[str, str | None] = {str(m["name"]): m.get("state") for m in listed["models"]}
    current = listed["current"]
    if current and current not in choices:
        choices = {current: None, **choices}
    return current, choices


def _state_note(state: str | None) -> str | None:
    if state is None or state == "loaded":
        return state
    return f"{state}: the server loads it when it is picked"


# The thought level ACP offers -> llm.think ("auto" leaves it to the model server).
THOUGHT_LEVELS = {"auto": "Auto (the model's default)", "low": "Low", "medium": "Medium", "high": "High"}


def _thought_level(service: AgentService) -> str:
    think = service.settings.llm.think
    return think if isinstance(think, str) and think in THOUGHT_LEVELS else "auto"


def _thinking_on(service: AgentService) -> bool:
    return service.settings.llm.think is not False


def set_thinking(service: AgentService, on: bool, level: str | None = None) -> None:
    """llm.think from the switch and the level: off is False, on is the level (None = the server's default)."""
    level = level if level is not None else _thought_level(service)
    if not on:
        service.settings.llm.think = False
    else:
        service.settings.llm.think = None if level == "auto" else level  # type: ignore[assignment]


async def set_option(service: AgentService, session: Session, config_id: str, value: Any) -> None:
    """`session/set_config_option`: a wrong id or value is the caller's mistake (ValueError -> invalid params)."""
    if config_id == "thinking":
        # A switch for clients with boolean options, a dropdown of "on"/"off" for the others.
        switch = {True: True, False: False, "on": True, "off": False}
        if not isinstance(value, (bool, str)) or value not in switch:
            raise ValueError('thinking is on or off: send true or false (or "on" / "off")')
        set_thinking(service, switch[value])
        return
    if not isinstance(value, str):
        raise ValueError(f"{config_id} takes a value id (a string)")
    if config_id == "mode":
        await set_mode(service, session, value)
    elif config_id == "model":
        _current, names = await model_names(service)
        if names and value not in names:
            raise ValueError(f"unknown model {value!r}; the server lists {', '.join(names)}")
        await service.select_model(value)
    elif config_id == "thought_level":
        if value not in THOUGHT_LEVELS:
            raise ValueError(f"unknown thought level {value!r}; the levels are {', '.join(THOUGHT_LEVELS)}")
        set_thinking(service, True, value)
    else:
        raise ValueError(f"unknown config option {config_id!r}; the options are mode, model, thinking, thought_level")


async def config_options(service: AgentService, session: Session, booleans: bool) -> list[acp.AnyConfigOption]:
    """The session's options; `booleans`: the client announced `session.configOptions.boolean` (others get no
    switch they cannot draw: thinking is then a dropdown of on/off)."""
    modes = mode_state(service, session)
    options: list[acp.AnyConfigOption] = [
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
    current, choices = await model_choices(service)
    if current:
        options.append(
            acp.SessionConfigOption(
                id="model",
                name="Model",
                category="model",
                description="Used by the next prompt, in every session of this agent",
                current_value=current,
                options=[
                    acp.SessionConfigSelectOption(value=n, name=n, description=_state_note(state))
                    for n, state in choices.items()
                ],
            )
        )
    thinking = "Let the model reason before it answers (models that can), in every session of this agent"
    if booleans:
        options.append(
            acp.SessionConfigBoolean(
                id="thinking", name="Thinking", category="thought_level", description=thinking,
                current_value=_thinking_on(service),
            )
        )  # fmt: skip
    else:
        options.append(
            acp.SessionConfigOption(
                id="thinking", name="Thinking", category="thought_level", description=thinking,
                current_value="on" if _thinking_on(service) else "off",
                options=[acp.SessionConfigSelectOption(value="on", name="On"),
                         acp.SessionConfigSelectOption(value="off", name="Off")],
            )
        )  # fmt: skip
    options.append(
        acp.SessionConfigOption(
            id="thought_level",
            name="Thought level",
            category="thought_level",
            description="How much the model reasons (models with reasoning effort); choosing one turns thinking on",
            current_value=_thought_level(service),
            options=[acp.SessionConfigSelectOption(value=k, name=v) for k, v in THOUGHT_LEVELS.items()],
        )
    )
    return options
