"""MCP client: servers from `mcpServers` config or ACP, their tools offered as namespaced `Tool` objects."""

from __future__ import annotations

from .config import ServerConfig, parse_server, servers_from_acp
from .connection import ServerStatus
from .convert import to_tool_result
from .manager import McpManager, describe_servers
from .naming import exposed_name

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
