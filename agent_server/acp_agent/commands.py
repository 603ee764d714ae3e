"""Slash commands offered with `available_commands_update`: a prompt with one runs it, not a model turn.

Each answers with an agent message; a command that changes the session also sends the updates a client needs to
redraw its pickers (`current_mode_update`, `config_option_update`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .. import acp
from ..session.service import AgentService
from ..turn.live_session import Session
from . import options
from .client import AcpClient


@dataclass
class CommandContext:
    service: AgentService
    session: Session
    client: AcpClient

    async def say(self, text: str) -> None:
        await self.client.session_update(self.session.id, acp.AgentMessageChunk(content=acp.TextContent(text=text)))

    async def options_changed(self) -> None:
        configs = await options.config_options(self.service, self.session, self.client.boolean_options)
        await self.client.session_update(self.session.id, acp.ConfigOptionUpdate(config_options=configs))


Run = Callable[[CommandContext, str], Awaitable[None]]


@dataclass
class Command:
    name: str
    description: str
    hint: str | None
    run: Run

    def advertised(self) -> acp.AvailableCommand:
        hint = acp.UnstructuredCommandInput(hint=self.hint) if self.hint else None
        return acp.AvailableCommand(name=self.name, description=self.description, input=hint)


async def _mode(ctx: CommandContext, arg: str) -> None:
    if not arg:
        state = options.mode_state(ctx.service, ctx.session)
        lines = [
            f"- `{m.id}`{' (current)' if m.id == state.current_mode_id else ''}: {m.description or m.name}"
            for m in state.available_modes
        ]
        await ctx.say("Modes:\n" + "\n".join(lines))
        return
    await options.set_mode(ctx.service, ctx.session, arg)
    current = ctx.session.mode
    await ctx.client.session_update(ctx.session.id, acp.CurrentModeUpdate(current_mode_id=current))
    await ctx.options_changed()
    await ctx.say(f"Mode: {current}.")


async def _model(ctx: CommandContext, arg: str) -> None:
    current, names = await options.model_names(ctx.service)
    if not arg:
        lines = [f"- `{n}`{' (current)' if n == current else ''}" for n in names] or ["(the LLM server lists none)"]
        await ctx.say("Models:\n" + "\n".join(lines))
        return
    if names and arg not in names:
        raise ValueError(f"unknown model {arg!r}; /model lists them")
    await ctx.service.select_model(arg)
    await ctx.options_changed()
    await ctx.say(f"Model: {arg} (from the next prompt on).")


async def _sessions(ctx: CommandContext, arg: str) -> None:
    found = await ctx.service.list_sessions(str(ctx.session.cwd))
    lines = [
        f"- `{s.session_id}` {s.title or '(untitled)'} ({s.updated_at or 'no date'})"
        + (" (this one)" if s.session_id == ctx.session.id else "")
        for s in found
    ]
    await ctx.say(f"Sessions in {ctx.session.cwd}:\n" + "\n".join(lines))


async def _index(ctx: CommandContext, arg: str) -> None:
    indexer = ctx.service.indexer
    if indexer is None:
        await ctx.say("Indexing is off (index.enabled = false) or the agent has no workspace root.")
        return
    indexer.start(ctx.client)
    await ctx.say("Indexing the workspace…\n")
    await indexer.wait()
    status = indexer.status()
    await ctx.say(f"Index of {status['root']}: {status['files']} files, {status['chunks']} chunks.")


async def _compact(ctx: CommandContext, arg: str) -> None:
    from ..session.compact_now import compact_session

    await ctx.say("Compacting the conversation…\n")
    await ctx.say(await compact_session(ctx.service, ctx.session))


COMMANDS = {
    c.name: c
    for c in (
        Command("mode", "Show the modes (agent profiles), or switch: /mode ask", "mode name", _mode),
        Command("model", "Show the models, or switch: /model NAME", "model name", _model),
        Command("sessions", "List the sessions of this folder", None, _sessions),
        Command("index", "Build or refresh the workspace index (search, auto context)", None, _index),
        Command("compact", "Summarize the conversation now to free context", None, _compact),
    )
}


def parse(prompt: list[acp.ContentBlock]) -> tuple[Command, str] | None:
    """The command a prompt runs, and its argument; None for an ordinary prompt.

    Any text block may hold it: clients put context blocks first (CodeCompanion), and after a cancel some send the
    old prompt again before the new one, so the last block that is a command wins."""
    for block in reversed(prompt):
        if not isinstance(block, acp.TextContent):
            continue
        text = block.text.strip()
        if not text.startswith("/"):
            continue
        parts = text[1:].split(maxsplit=1)
        command = COMMANDS.get(parts[0]) if parts else None
        if command is not None:
            return command, parts[1].strip() if len(parts) > 1 else ""
    return None


async def custom(service: AgentService, session: Session) -> list[acp.AvailableCommand]:
    """Prompt files and MCP prompts (docs/rules-and-commands.md); a built-in command keeps its name."""
    from ..context_sources.session_commands import session_commands

    try:
        found = await session_commands(session.cwd, session.mcp, refuse=service.refusal(session.cwd))
    except Exception:  # the built-in commands are still worth advertising
        return []
    return [
        acp.AvailableCommand(
            name=c.name,
            description=c.description,
            input=acp.UnstructuredCommandInput(hint=c.hint) if c.hint else None,
        )
        for c in found
        if c.name not in COMMANDS
    ]


def available(service: AgentService) -> list[acp.AvailableCommand]:
    return [c.advertised() for c in COMMANDS.values() if c.name != "index" or service.indexer is not None]
