"""One turn as the session's agent profile shapes it: the Turn (tools, model, permissions, prompt, limits), the
`run_agent` tool where the profile lists it, and then the turn loop or, for `kind: orchestrate`, the orchestrator."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from ..agents import Profile, modes
from ..agents.orchestrator import orchestrate, run_subturn
from ..agents.subagents import RUN_AGENT, run_agent_tool
from ..checkpoints import CheckpointService
from ..checkpoints.hook import checkpoint_hook
from ..client_contract import AgentClient
from ..config import Settings
from ..context_sources import shown_files
from ..context_sources.rules_prompt import RulesCache
from ..context_sources.session_recall import recall_for_turn
from ..context_sources.session_rules import meter_meta, rules_for_turn
from ..hooks import Hooks
from ..hooks.runner import chain
from ..index.chunker import outline_chunks
from ..llm.base import ModelInfo, Provider
from ..llm.text_tools import recover_tool_calls
from ..messages import Message, ToolCall
from ..store import Store
from ..tools.base import Services
from ..tools.code_nav import code_tools
from ..tools.permissions import PermissionPolicy
from ..tools.registry import ToolRegistry
from ..tools.write_guard import begin_turn
from ..turn.checks import edit_watcher
from ..turn.context_step import ContextStep
from ..turn.edit_blocks import edit_calls
from ..turn.guards.text_call_cap import capped
from ..turn.live_session import Session
from ..turn.loop import run_turn
from ..turn.prompts import system_prompt
from ..turn.relay import UpdateRelay
from ..turn.turn import StopReason, Turn

Persist = Callable[[list[Message]], Awaitable[None]]


class TurnHost(Protocol):
    """What a profiled turn takes from the service that runs it (`AgentService` is one)."""

    settings: Settings
    store: Store
    services: Services
    checkpoints: CheckpointService | None
    modes: modes.ModeManager
    rules: RulesCache

    async def provider(self, client: AgentClient | None = None) -> tuple[Provider, str, ModelInfo | None]: ...

    async def turn_provider(
        self, session: Session, client: AgentClient | None = None
    ) -> tuple[Provider, str, ModelInfo | None]: ...

    def tools_for(self, session: Session, profile: Profile | None = None) -> ToolRegistry: ...


def _recovery(settings: Settings, session: Session) -> Callable[[str, set[str]], tuple[list[ToolCall], int]] | None:
    """How calls written as text are read: edit blocks in `files` format, tool calls otherwise (if on); either way
    at most `agent.max_text_calls` of them run (text_call_cap.py)."""
    cap = settings.agent.max_text_calls
    if settings.agent.edit_format == "files":
        if not session.files_edit:
            return None  # a question: a file the answer quotes is not a change

        def from_blocks(text: str, names: set[str]) -> tuple[list[ToolCall], int]:
            now = shown_files.current_text(session.shown_files, session.cwd)
            calls = edit_calls(text, session.shown_files, now, may_remove=session.files_remove)
            return capped([c for c in calls if c.name in names], cap)

        return from_blocks
    if not settings.agent.recover_text_tool_calls:
        return None

    def from_text(text: str, names: set[str]) -> tuple[list[ToolCall], int]:
        return capped(recover_tool_calls(text, names)[0], cap)

    return from_text


async def _keep_nothing(history: list[Message]) -> None:  # a sub-turn's history is scratch
    return None


async def run_profiled_turn(
    service: TurnHost,
    session: Session,
    shaped: modes.TurnSetup,
    text: str,
    client: AgentClient,
    relay: UpdateRelay,
    record: Callable[[Message], Awaitable[None]],
    persist: Persist,
    turn_message_id: int,
) -> StopReason:
    begin_turn(text)  # the turn's writes are judged against what the user asked (tools/write_guard.py)
    provider, model, info = await service.turn_provider(session, client)
    profile, settings = shaped.profile, shaped.settings
    # The rules files sit right after the system prompt: the same bytes every round until a file changes.
    rules, scoped = await rules_for_turn(
        service.rules, session.cwd, settings, info, service.store.path, lambda: session.history
    )
    policy = PermissionPolicy(settings.tools, service.store, session.approvals)
    # Skills (names and one line each) and memory notes follow the rules; both are empty unless there are some.
    recall = await recall_for_turn(
        session.cwd,
        settings,
        info,
        rules.trusted,
        lambda: session.history,
        profile.offers,
        lambda path: policy.read_refusal(path, session.cwd),
    )
    extra = shaped.system_extra + rules.text + recall.text
    system = system_prompt(session.cwd, settings.agent.profile, settings.agent.system_prompt) + extra

    def fresh_context(history: Persist = persist) -> ContextStep:
        step = ContextStep(settings, system, info, provider.name, history, outline_chunks)
        step.system_extra = extra
        step.explicit_tools = set(profile.spec.tools or ())
        step.meter_meta = meter_meta(rules)
        return step

    checkpoints = service.checkpoints
    turn = Turn(
        session=session,
        client=client,
        provider=provider,
        model=shaped.model or model,
        settings=settings,
        tools=service.tools_for(session, profile),
        policy=policy,
        context=fresh_context(),
        record=record,
        relay=relay,
        services=service.services,
        recover_calls=_recovery(settings, session),
        checkpoint=checkpoint_hook(checkpoints, session, turn_message_id, text) if checkpoints else None,
    )
    # load_skill, remember: only when there are skills / memory is on; the code tools only where they can be served
    for tool in recall.tools + code_tools(client.features, service.services, profile.offers, policy, session.cwd):
        turn.tools.register(tool, replace=True)
    turn.watch_edit = edit_watcher(turn)
    hooks = Hooks(settings.hooks, session.cwd, session.id, lambda text: client.log("warning", text))
    if hooks.active:
        turn.before_tool = hooks.before if settings.hooks.pre_tool_use else None
    turn.after_tool = chain(hooks.after if settings.hooks.post_tool_use else None, scoped)
    if profile.spec.tools and RUN_AGENT in profile.spec.tools:

        async def delegate(name: str, task: str, parent: str | None) -> str:
            sub = modes.setup(service.modes.catalog(session).get(name), service.settings)
            context = ContextStep(
                sub.settings,
                system_prompt(session.cwd, sub.settings.agent.profile, None) + sub.system_extra + rules.text,
                info,
                provider.name,
                _keep_nothing,
                outline_chunks,
            )
            context.system_extra = sub.system_extra + rules.text
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
                policy=PermissionPolicy(sub.settings.tools, service.store, session.approvals),
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
        stop = await orchestrate(
            turn,
            text,
            planner=spec.planner_model or turn.model,
            worker=spec.worker_model or turn.model,
            max_steps=spec.max_steps,
            fresh_context=lambda: fresh_context(_keep_nothing),
        )
    else:
        stop = await run_turn(turn)
    if settings.hooks.stop:
        await relay.flush()
        await hooks.stop(stop)
    return stop
