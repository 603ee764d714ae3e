"""MCP prompts as slash commands: `prompts/list` and `prompts/get` through the session's running MCP servers.

A prompt `review` of the server `github` is the command `/mcp.github.review`; its arguments are given in order
(`/mcp.github.review 42 brief`), or as `name=value` words. The prompt's messages become the user's message, each
text as it is (a resource embedded in a message is added with its URI; images are named, not sent).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import mcp_types as mt

from ..tools.mcp.manager import McpManager
from .commands import CustomCommand, words

log = logging.getLogger(__name__)
PREFIX = "mcp."


async def list_prompt_commands(manager: McpManager) -> list[CustomCommand]:
    """The prompts of every server that is ready now (a server that fails to list is left out and logged)."""

    async def one(server: str) -> list[CustomCommand]:
        conn = manager.connections()[server]
        try:
            result = await conn.request(lambda c: c.list_prompts(), wait=False)
        except Exception as exc:  # a server without prompts answers "method not found"
            log.info("MCP server %s lists no prompts: %s", server, exc)
            return []
        if result is None:
            return []
        return [_command(server, p) for p in result.prompts]

    lists = await asyncio.gather(*(one(name) for name in manager.connections()))
    return [c for found in lists for c in found]


def _command(server: str, prompt: mt.Prompt) -> CustomCommand:
    names = tuple(a.name for a in prompt.arguments or [])
    hint = " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in prompt.arguments or []) or None
    return CustomCommand(
        name=f"{PREFIX}{server}.{prompt.name}",
        description=(prompt.description or prompt.title or prompt.name)[:200],
        hint=hint,
        body="",
        source=f"mcp:{server}",
        mcp=(server, prompt.name, names),
    )


def prompt_arguments(names: tuple[str, ...], arguments: str) -> dict[str, str]:
    """`name=value` words by name, the other words in order."""
    out: dict[str, str] = {}
    rest: list[str] = []
    for word in words(arguments):
        key, eq, value = word.partition("=")
        if eq and key in names:
            out[key] = value
        else:
            rest.append(word)
    free = [n for n in names if n not in out]
    for name, value in zip(free, rest, strict=False):
        out[name] = value
    if len(rest) > len(free) and free:
        out[free[-1]] = " ".join([out[free[-1]], *rest[len(free) :]])
    return out


async def get_prompt_text(manager: McpManager, command: CustomCommand, arguments: str) -> str:
    assert command.mcp is not None
    server, name, names = command.mcp
    conn = manager.connections().get(server)
    if conn is None:
        raise ValueError(f"MCP server '{server}' is not running in this session")
    args = prompt_arguments(names, arguments)
    result = await conn.request(lambda c: c.get_prompt(name, args))
    if result is None:
        raise ValueError(f"MCP server '{server}' is not available ({conn.state})")
    return "\n\n".join(_text(m) for m in result.messages if _text(m))


def _text(message: Any) -> str:
    content = message.content
    kind = getattr(content, "type", "")
    if kind == "text":
        return str(content.text)
    if kind == "resource":
        resource = content.resource
        body = getattr(resource, "text", None)
        return f"From {resource.uri}:\n{body}" if body is not None else f"(resource {resource.uri})"
    if kind == "resource_link":
        return f"(see {content.uri})"
    return f"({kind} content not sent)" if kind else ""
