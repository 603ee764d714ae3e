"""All configured MCP servers: started in the background, their tools offered as `Tool` objects."""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import jsonschema
import mcp_types as mt

from ...errors import ConfigError
from ..base import Tool, ToolContext, ToolResult
from .config import ServerConfig, parse_server
from .connection import ServerConnection, ServerStatus
from .naming import exposed_name

log = logging.getLogger(__name__)

LogCallback = Callable[[str, str], Awaitable[None] | None]
"""on_log(level, message); level is "warning" or "error"."""


class McpManager:
    """Starts servers without blocking; `tools()` returns what is ready now."""

    def __init__(
        self,
        servers: dict[str, dict[str, Any]],
        *,
        call_timeout_s: float = 60.0,
        on_log: LogCallback | None = None,
        cwd: Path | None = None,
    ) -> None:
        self._on_log = on_log
        self._connections: dict[str, ServerConnection] = {}
        self._broken: dict[str, ServerStatus] = {}
        self._names: dict[tuple[str, str], str] = {}
        self._cache: dict[str, tuple[int, list[Tool]]] = {}
        for name, spec in servers.items():
            try:
                config: ServerConfig = parse_server(name, spec, cwd)
            except ConfigError as exc:
                kind = "http" if isinstance(spec, dict) and "url" in spec else "stdio"
                self._broken[name] = ServerStatus(name, kind, "failed", str(exc))
                continue
            if config.disabled:
                continue
            self._connections[name] = ServerConnection(config, call_timeout_s=call_timeout_s, warn=self._warn)

    async def start(self) -> None:
        """Returns at once; each server connects in its own background task."""
        for name, status in self._broken.items():
            await self._warn(f"MCP server '{name}' not started: {status.error}")
        for conn in self._connections.values():
            conn.start()

    async def wait_ready(self, timeout: float) -> None:  # noqa: ASYNC109 - the documented manager API
        """Wait until every server is ready or has failed (or the timeout passes); never raises."""
        conns = list(self._connections.values())
        if conns:
            await asyncio.gather(*(c.wait_settled(timeout) for c in conns))

    def tools(self) -> list[Tool]:
        """Tools of the servers that are ready, and of those restarting after they were: a call to one of
        those waits for the restart (up to the call timeout) instead of finding the tool gone."""
        out: list[Tool] = []
        for name, conn in self._connections.items():
            if not (conn.state == "ready" or (conn.state == "restarting" and conn.generation > 0)):
                continue
            cached = self._cache.get(name)
            if cached is None or cached[0] != conn.generation:
                cached = (conn.generation, [self._make_tool(conn, t) for t in conn.tools])
                self._cache[name] = cached
            out.extend(cached[1])
        return out

    def connections(self) -> dict[str, ServerConnection]:
        """The servers by name (prompts: context_sources/mcp_prompts.py; resources: resources.py)."""
        return dict(self._connections)

    def status(self) -> list[ServerStatus]:
        out = list(self._broken.values())
        for conn in self._connections.values():
            names = [self._name(conn.name, t.name) for t in conn.tools] if conn.state == "ready" else []
            out.append(ServerStatus(conn.name, conn.config.transport, conn.state, conn.error, names))
        return out

    def resolve(self, exposed: str) -> tuple[str, str] | None:
        """`server__tool` -> (server, original tool name), exactly as the server named it."""
        for key, name in self._names.items():
            if name == exposed:
                return key
        return None

    async def aclose(self) -> None:
        await asyncio.gather(*(c.aclose() for c in self._connections.values()))

    # --- internals ------------------------------------------------------------------------------------

    def _name(self, server: str, tool: str) -> str:
        key = (server, tool)
        if key not in self._names:
            self._names[key] = exposed_name(server, tool, set(self._names.values()))
        return self._names[key]

    def _make_tool(self, conn: ServerConnection, spec: mt.Tool) -> Tool:
        name = self._name(conn.name, spec.name)
        schema = _object_schema(spec.input_schema)
        validator = _validator(schema, name)
        original = spec.name

        async def handler(ctx: ToolContext, arguments: dict[str, Any]) -> ToolResult:
            args = arguments or {}
            if validator is not None:
                problem = _first_error(validator, args)
                if problem is not None:
                    return ToolResult(text=f"Error: invalid arguments for {name}: {problem}", is_error=True)
            return await conn.call(original, args)

        annotations = spec.annotations
        read_only = bool(annotations and annotations.read_only_hint)
        label = (annotations.title if annotations else None) or spec.title or original
        return Tool(
            name=name,
            description=spec.description or spec.title or f"{original} (from MCP server {conn.name})",
            parameters=schema,
            handler=handler,
            kind="read" if read_only else "other",
            default_policy="ask",
            title=_title(f"{conn.name}: {label}"),
            source=conn.name,
        )

    async def _warn(self, message: str) -> None:
        if self._on_log is None:
            log.warning("%s", message)
            return
        log.info("%s", message)  # the sink shows it; a warning record would reach the editor a second time
        try:
            maybe = self._on_log("warning", message)
            if inspect.isawaitable(maybe):
                await maybe
        except Exception:  # a broken log sink must not take MCP down
            log.exception("MCP log callback failed")


async def describe_servers(manager: McpManager, wait_s: float = 15.0) -> list[ServerStatus]:
    """For `agent-server doctor`: wait for servers to settle, then report each one's state and tools."""
    await manager.wait_ready(wait_s)
    return manager.status()


def _title(text: str) -> Callable[[dict[str, Any]], str]:
    return lambda _args: text


def _object_schema(schema: dict[str, Any] | None) -> dict[str, Any]:
    """Models and providers expect `{"type": "object", "properties": {...}}`; some servers send less."""
    out = dict(schema or {})
    out.setdefault("type", "object")
    if out.get("type") == "object":
        out.setdefault("properties", {})
    return out


def _validator(schema: dict[str, Any], name: str) -> jsonschema.protocols.Validator | None:
    try:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        cls.check_schema(schema)
        return cls(schema)  # type: ignore[no-any-return]
    except jsonschema.SchemaError as exc:
        log.warning("MCP tool %s has an invalid input schema (%s); arguments go unchecked", name, exc.message)
        return None


def _first_error(validator: jsonschema.protocols.Validator, args: dict[str, Any]) -> str | None:
    error = jsonschema.exceptions.best_match(validator.iter_errors(args))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    at = f" (at '{where}')" if where else ""
    props = validator.schema.get("properties") if isinstance(validator.schema, dict) else None
    expected = ""
    if isinstance(props, dict) and props:
        required = validator.schema.get("required", [])
        shown = {k: (v.get("type", "any") if isinstance(v, dict) else "any") for k, v in props.items()}
        expected = f". Expected {json.dumps(shown)}, required: {json.dumps(required)}"
    return f"{error.message}{at}{expected}"
