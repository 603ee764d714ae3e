"""Custom commands for a session: the list the faces advertise (files and MCP prompts), and a prompt that starts
with one turned into the text the model gets."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import acp
from ..errors import InvalidParamsError
from .commands import CustomCommand, Invocation, discover_commands, expand, split_invocation
from .memory_command import COMMAND as REMEMBER
from .skill_commands import SkillCommand, skill_commands, skill_prompt

log = logging.getLogger(__name__)


async def session_commands(
    root: Path, mcp: Any, user_dir: Path | None = None, refuse: Callable[[Path], str | None] | None = None
) -> list[CustomCommand]:
    """Files first, then MCP prompts (a file command keeps its name if a prompt has the same one); `refuse` keeps
    out a workspace file the user's deny rules cover (commands.py)."""
    found, problems = await asyncio.to_thread(discover_commands, root, user_dir, refuse)
    for problem in problems:
        log.warning("command file skipped: %s", problem)
    for skill in await asyncio.to_thread(skill_commands, root, refuse):  # `/name` loads a skill
        found.setdefault(skill.name, skill)
    found[REMEMBER.name] = REMEMBER  # answered by the server itself (memory_command.py)
    if mcp is not None:
        from .mcp_prompts import list_prompt_commands

        for command in await list_prompt_commands(mcp):
            found.setdefault(command.name, command)
    return sorted(found.values(), key=lambda c: c.name)


async def invoke(
    blocks: list[acp.ContentBlock],
    root: Path,
    mcp: Any,
    user_dir: Path | None = None,
    refuse: Callable[[Path], str | None] | None = None,
) -> tuple[list[acp.ContentBlock], Invocation | None]:
    """The prompt with its leading `/command args` expanded; unchanged (and None) for anything else."""
    index = next((i for i, b in enumerate(blocks) if isinstance(b, acp.TextContent)), None)
    if index is None:
        return blocks, None
    block = blocks[index]
    assert isinstance(block, acp.TextContent)
    parsed = split_invocation(block.text)
    if parsed is None:
        return blocks, None
    name, arguments = parsed
    commands = {c.name: c for c in await session_commands(root, mcp, user_dir, refuse)}
    command = commands.get(name)
    if command is None or command is REMEMBER:
        return blocks, None  # an unknown `/word` is ordinary text; `/remember` is the service's (memory_command.py)
    if command.mcp is not None:
        from .mcp_prompts import get_prompt_text

        try:
            text = await get_prompt_text(mcp, command, arguments)
        except Exception as exc:
            raise InvalidParamsError(f"/{name}: the MCP prompt failed: {exc}") from None
    elif isinstance(command, SkillCommand):
        text = await asyncio.to_thread(skill_prompt, command, arguments)
    else:
        text = expand(command.body, arguments)
    out = list(blocks)
    out[index] = acp.TextContent(text=text)
    return out, Invocation(command=command, arguments=arguments, text=text)
