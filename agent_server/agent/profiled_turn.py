"""One turn as the session's agent profile shapes it: the Turn (tools, model, permissions, prompt, limits), the
`run_agent` tool where the profile lists it, and then the turn loop or, for `kind: orchestrate`, the orchestrator."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ..llm.text_tools import recover_tool_calls
from ..messages import Message
from ..tools.permissions import PermissionPolicy
from . import modes
from .checkpointing import checkpoint_hook
from .client import AgentClient
from .context_step import ContextStep
from .loop import StopReason, Turn, run_turn
from .orchestrator import orchestrate, run_subturn
from .prompts import system_prompt
from .relay import UpdateRelay
from .session import Session
from .subagents import RUN_AGENT, run_agent_tool

if TYPE_CHECKING:
    from .service import AgentService

Persist = Callable[[list[Message]], Awaitable[None]]


async def _keep_nothing(history: list[Message]) -> None:  # a sub-turn's history is scratch
    return None


async def run_profiled_turn(
    service: AgentService,
    session: Session,
    shaped: modes.TurnSetup,
    text: str,
    client: AgentClient,
    relay: UpdateRelay,
    record: Callable[[Message], Awaitable[None]],
    persist: Persist,
    turn_message_id: int,
) -> StopReason:
    provider, model, info = await service.turn_provider(session)
    profile, settings = shaped.profile, shaped.settings
    system = system_prompt(session.cwd, settings.agent.profile, settings.agent.system_prompt) + shaped.system_extra

    def fresh_context(history: Persist = persist) -> ContextStep:
        step = ContextStep(settings, system, info, provider.name, history)
        step.system_extra = shaped.system_extra
        step.explicit_tools = set(profile.spec.tools or ())
        return step

    checkpoints = service.checkpoints
    turn = Turn(
        session=session,
        client=client,
        provider=provider,
        model=shaped.model or model,
        settings=settings,
        tools=service.tools_for(session, profile),
        policy=PermissionPolicy(settings.tools, service.store),
        context=fresh_context(),
        record=record,
        relay=relay,
        services=service.services,
        recover_calls=recover_tool_calls,
        checkpoint=checkpoint_hook(checkpoints, session, turn_message_id, text) if checkpoints else None,
    )
    if profile.spec.tools and RUN_AGENT in profile.spec.tools:

        async def delegate(name: str, task: str, parent: str | None) -> str:
            sub = modes.setup(service.modes.catalog(session).get(name), service.settings)
            context = ContextStep(
                sub.settings,
                system_prompt(session.cwd, sub.settings.agent.profile, None) + sub.system_extra,
                info,
                provider.name,
                _keep_nothing,
            )
            context.system_extra = sub.system_extra
            context.explicit_tools = set(sub.profile.spec.tools or ())
            tools = service.tools_for(session, sub.profile)
            tools.unregister(RUN_AGENT)  # a subagent does not delegate again
            summary, _stop = await run_subturn(
                turn,
                task,
                sub.model or turn.model,
                context,
                parent or "",
                tools=tools,
                policy=PermissionPolicy(sub.settings.tools, service.store),
                settings=sub.settings,
            )
            return summary

        callable_agents = {
            p.name: p.spec.description
            for p in service.modes.catalog(session).profiles.values()
            if p.spec.kind != "orchestrate" and p.name != profile.name
        }
        turn.tools.register(run_agent_tool(callable_agents, delegate), replace=True)
    if profile.spec.kind == "orchestrate":
        spec = profile.spec
        return await orchestrate(
            turn,
            text,
            planner=spec.planner_model or turn.model,
            worker=spec.worker_model or turn.model,
            max_steps=spec.max_steps,
            fresh_context=lambda: fresh_context(_keep_nothing),
        )
    return await run_turn(turn)
