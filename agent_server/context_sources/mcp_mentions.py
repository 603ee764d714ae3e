"""MCP resources mentioned in a prompt reach the model with their content, read through the session's MCP servers:
`@SERVER:URI` in the text (what both editors complete), and ACP `resource_link` blocks whose URI an MCP server
lists (or names in `_meta.agentServer.mcpServer`). Before this, such links reached the model as a bare name.
A resource that cannot be read is named with the reason, so the model (and the user) know it is missing.

A `file:` resource is a path like any other: `refuse` (the session's read_file deny rules, on the path as written and
where it really lands) keeps a denied file out, whether the mention names it or the server's answer does. A mention
may come from a custom command's text, which is the repository's."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlparse

from .. import acp

MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_-]+):(\S+)")
MAX_CHARS = 12_000  # like a linked workspace file: small windows first; the rest is named
_TRAILING = ".,;:!?)]'\""
Refuse = Callable[[str], str | None]


def _refusal(uri: str, refuse: Refuse | None) -> str | None:
    """Why a `file:` URI may not be read (None for other schemes: they name no file of ours)."""
    parsed = urlparse(uri)
    if refuse is None or parsed.scheme.lower() != "file":
        return None
    return refuse(unquote(parsed.path))


async def resolve(blocks: list[acp.ContentBlock], mcp: Any, refuse: Refuse | None = None) -> list[acp.ContentBlock]:
    """The prompt with its MCP resource mentions read and added (links replaced) as embedded resources."""
    if mcp is None or not mcp.connections():
        return blocks
    from ..tools.mcp.resources import server_of

    servers = set(mcp.connections())
    out: list[acp.ContentBlock] = []
    added: list[acp.ContentBlock] = []
    for block in blocks:
        if isinstance(block, acp.TextContent):
            out.append(block)
            for found in MENTION.finditer(block.text):
                if found.group(1) in servers:
                    added += await _read(mcp, found.group(1), found.group(2).rstrip(_TRAILING), refuse)
        elif isinstance(block, acp.ResourceLink) and not block.uri.startswith("file:"):
            named = ((block.meta or {}).get("agentServer") or {}).get("mcpServer")
            server = named if named in servers else await server_of(mcp, block.uri)
            out += await _read(mcp, server, block.uri, refuse) if server else [block]
        else:
            out.append(block)
    return out + added


async def _read(mcp: Any, server: str, uri: str, refuse: Refuse | None) -> list[acp.ContentBlock]:
    from ..tools.mcp.resources import read_resource

    if why := _refusal(uri, refuse):
        return [acp.TextContent(text=f"(the MCP resource @{server}:{uri} is not read: {why})")]
    try:
        contents = await read_resource(mcp, server, uri)
    except ValueError as exc:
        return [acp.TextContent(text=f"(could not read the MCP resource @{server}:{uri}: {exc})")]
    blocks: list[acp.ContentBlock] = []
    for content_uri, text in contents:
        if why := _refusal(content_uri, refuse):  # the server answered with a file the user's rules keep out
            blocks.append(acp.TextContent(text=f"(the MCP resource @{server}:{content_uri} is not sent: {why})"))
            continue
        if text is None:
            blocks.append(acp.TextContent(text=f"(MCP resource @{server}:{content_uri} is binary: not sent)"))
            continue
        if len(text) > MAX_CHARS:
            text = text[:MAX_CHARS] + f"\n[… cut at {MAX_CHARS} characters]"
        resource = acp.TextResourceContents(uri=f"{server}:{content_uri}", text=text)
        blocks.append(acp.EmbeddedResource(resource=resource))
    return blocks
