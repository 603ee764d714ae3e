"""MCP resources as mentions: `resources/list` and `resources/templates/list` for the editors' `@` completion, and
`resources/read` for a mention in a prompt (`@SERVER:URI`, or an ACP resource_link whose URI a server lists), through
the session's running MCP servers. A template's `{name}` parts are filled in by the user in the mention text
(`@weather:weather://Paris/current` for `weather://{city}/current`)."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from .manager import McpManager

log = logging.getLogger(__name__)
_VARIABLE = re.compile(r"\{([^{}]+)\}")


async def list_resources(manager: McpManager) -> list[dict[str, Any]]:
    """Every ready server's resources and templates, as the editors complete them (`mention` is `server:uri`)."""

    async def one(server: str) -> list[dict[str, Any]]:
        conn = manager.connections()[server]
        out: list[dict[str, Any]] = []
        try:
            listed = await conn.request(lambda c: c.list_resources(), wait=False)
        except Exception as exc:  # no resources capability: nothing to list
            log.info("MCP server %s lists no resources: %s", server, exc)
            listed = None
        for r in listed.resources if listed is not None else []:
            out.append(_entry(server, str(r.uri), r.name, r.description, r.mime_type, []))
        try:
            templates = await conn.request(lambda c: c.list_resource_templates(), wait=False)
        except Exception as exc:
            log.info("MCP server %s lists no resource templates: %s", server, exc)
            templates = None
        for t in templates.resource_templates if templates is not None else []:
            out.append(
                _entry(server, t.uri_template, t.name, t.description, t.mime_type, _VARIABLE.findall(t.uri_template))
            )
        return out

    lists = await asyncio.gather(*(one(name) for name in manager.connections()))
    return [entry for found in lists for entry in found]


def _entry(
    server: str, uri: str, name: str, description: str | None, mime: str | None, arguments: list[str]
) -> dict[str, Any]:
    return {
        "mention": f"{server}:{uri}",
        "server": server,
        "uri": uri,
        "name": name,
        "description": description or "",
        "mimeType": mime,
        "template": bool(arguments),
        "arguments": arguments,
    }


async def read_resource(manager: McpManager, server: str, uri: str) -> list[tuple[str, str | None]]:
    """(uri, text) per content of the resource; text None for binary content. ValueError with the reason."""
    if _VARIABLE.search(uri):
        raise ValueError(f"fill in {', '.join('{' + v + '}' for v in _VARIABLE.findall(uri))} in the mention first")
    conn = manager.connections().get(server)
    if conn is None:
        raise ValueError(f"no MCP server '{server}' in this session")
    try:
        result = await conn.request(lambda c: c.read_resource(uri))
    except Exception as exc:
        raise ValueError(str(exc) or type(exc).__name__) from None
    if result is None:
        raise ValueError(f"MCP server '{server}' is not available ({conn.state})")
    return [(str(c.uri), getattr(c, "text", None)) for c in result.contents]


async def server_of(manager: McpManager, uri: str) -> str | None:
    """The server that lists `uri` among its resources (for a resource_link without a server name)."""
    for entry in await list_resources(manager):
        if not entry["template"] and entry["uri"] == uri:
            return str(entry["server"])
    return None
