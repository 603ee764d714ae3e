"""MCP client: servers from `mcpServers` config or ACP, their tools offered as namespaced `Tool` objects."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .config import ServerConfig, parse_server, servers_from_acp
from .naming import exposed_name

if TYPE_CHECKING:
    from .connection import ServerStatus
    from .convert import to_tool_result
    from .manager import McpManager, describe_servers

# The MCP SDK (and what it pulls in) loads only when a session really has MCP servers: not at server start.
_LAZY = {
    "McpManager": ".manager",
    "describe_servers": ".manager",
    "ServerStatus": ".connection",
    "to_tool_result": ".convert",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "McpManager",
    "ServerConfig",
    "ServerStatus",
    "describe_servers",
    "exposed_name",
    "parse_server",
    "servers_from_acp",
    "to_tool_result",
]
