"""A registry of every built-in tool, as the service builds one (AgentService: builtin_tools + the result limit)."""

from __future__ import annotations

from agent_server.config import Settings, ToolsConfig
from agent_server.tools.builtin import builtin_tools
from agent_server.tools.registry import ToolRegistry


def default_registry(config: ToolsConfig | Settings | None = None) -> ToolRegistry:
    cfg = config.tools if isinstance(config, Settings) else (config or ToolsConfig())
    return ToolRegistry(builtin_tools(cfg), result_limit=cfg.result_limit)
