"""MCP server configuration: the common `mcpServers` JSON object and ACP's `mcpServers` list, as one shape."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ... import acp
from ...errors import ConfigError

Transport = Literal["stdio", "http", "sse"]

_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")
_HTTP_TYPES = {"http": "http", "streamable-http": "http", "streamablehttp": "http", "sse": "sse"}


@dataclass
class ServerConfig:
    """One MCP server: a command to spawn (stdio) or a URL to reach (streamable HTTP / SSE)."""

    name: str
    transport: Transport
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    disabled: bool = False


def _expand(value: str) -> str:
    """`${VAR}` / `${env:VAR}` from our environment, so tokens need not be written into config files."""
    return _VAR.sub(lambda m: os.environ.get(m.group(1), ""), value)


def _str_map(name: str, key: str, value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ConfigError(f"mcp_servers.{name}.{key}", f"expected an object of strings (got {value!r})")
    return {k: _expand(str(v)) for k, v in value.items()}


def parse_server(name: str, spec: dict[str, Any], cwd: Path | None = None) -> ServerConfig:
    """Validate one `mcpServers` entry; a bad entry raises ConfigError naming its key."""
    if not isinstance(spec, dict):
        raise ConfigError(f"mcp_servers.{name}", f"expected an object (got {spec!r})")
    kind = str(spec.get("type") or spec.get("transport") or "").lower()
    disabled = bool(spec.get("disabled", False))
    if "url" in spec and kind != "stdio":
        url = spec["url"]
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ConfigError(f"mcp_servers.{name}.url", f"expected an http(s) URL (got {url!r})")
        transport: Transport = "sse" if _HTTP_TYPES.get(kind) == "sse" else "http"
        headers = _str_map(name, "headers", spec.get("headers"))
        return ServerConfig(name, transport, url=_expand(url), headers=headers, disabled=disabled)
    command = spec.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"mcp_servers.{name}", "needs either 'command' (stdio) or 'url' (HTTP)")
    args = spec.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
        raise ConfigError(f"mcp_servers.{name}.args", f"expected a list of strings (got {args!r})")
    server_cwd = spec.get("cwd")
    if server_cwd is not None and not isinstance(server_cwd, str):
        raise ConfigError(f"mcp_servers.{name}.cwd", f"expected a path (got {server_cwd!r})")
    resolved_cwd = cwd
    if server_cwd:
        path = Path(_expand(server_cwd)).expanduser()
        resolved_cwd = path if path.is_absolute() or cwd is None else cwd / path
    return ServerConfig(
        name,
        "stdio",
        command=_expand(command),
        args=[_expand(str(a)) for a in args],
        env=_str_map(name, "env", spec.get("env")),
        cwd=resolved_cwd,
        disabled=disabled,
    )


def servers_from_acp(servers: list[acp.McpServer]) -> dict[str, dict[str, Any]]:
    """ACP `mcpServers` (session/new, session/load) -> the `mcpServers` object form our settings use."""
    out: dict[str, dict[str, Any]] = {}
    for server in servers:
        if isinstance(server, acp.McpServerStdio):
            out[server.name] = {
                "command": server.command,
                "args": list(server.args),
                "env": {e.name: e.value for e in server.env},
            }
        else:
            out[server.name] = {
                "type": server.type,
                "url": server.url,
                "headers": {h.name: h.value for h in server.headers},
            }
    return out
