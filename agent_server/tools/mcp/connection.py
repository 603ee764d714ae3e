"""One MCP server: a supervisor task that connects, lists tools, and restarts the server with backoff."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import mcp_types as mt
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from ..base import ToolResult
from .config import ServerConfig
from .convert import to_tool_result

T = TypeVar("T")

log = logging.getLogger(__name__)

State = Literal["starting", "ready", "restarting", "failed", "stopped"]

STARTUP_TIMEOUT_S = 30.0
BACKOFF_BASE_S = 0.25
BACKOFF_MAX_S = 30.0
MAX_START_FAILURES = 3  # consecutive attempts that never got ready
MAX_CRASHES = 8  # consecutive crashes of a server that did get ready
STABLE_AFTER_S = 60.0  # a server up this long has its crash count reset


@dataclass
class ServerStatus:
    """What `doctor` shows for one configured server."""

    name: str
    transport: str
    state: State
    error: str | None = None
    tools: list[str] = field(default_factory=list)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, MCPError):
        return f"MCP error {exc.code}: {exc.message}"
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _describe(exc.exceptions[0])
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if type(exc).__name__ not in text else text


def _permanent(exc: BaseException) -> bool:
    """Errors no restart will fix (a missing executable, a bad working directory)."""
    if isinstance(exc, BaseExceptionGroup):
        return any(_permanent(e) for e in exc.exceptions)
    return isinstance(exc, (FileNotFoundError, NotADirectoryError, PermissionError))


class ServerConnection:
    """Owns one server's lifecycle; `call` never raises for server trouble, it returns an error result."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        call_timeout_s: float,
        warn: Callable[[str], Awaitable[None]],
    ) -> None:
        self.config = config
        self.call_timeout_s = call_timeout_s
        self._warn = warn
        self.state: State = "starting"
        self.error: str | None = None
        self.tools: list[mt.Tool] = []
        self.generation = 0  # bumps on every successful (re)connect
        self._client: Client | None = None
        self._ready = asyncio.Event()
        self._settled = asyncio.Event()  # ready or failed at least once
        self._dead = asyncio.Event()
        self._relist = asyncio.Event()
        self._closing = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def name(self) -> str:
        return self.config.name

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._supervise(), name=f"mcp:{self.name}")

    async def wait_settled(self, within_s: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settled.wait(), within_s)

    # --- supervision ----------------------------------------------------------------------------------

    async def _supervise(self) -> None:
        start_failures = 0
        crashes = 0
        while not self._closing.is_set():
            self._dead = asyncio.Event()
            self._relist.clear()
            began = time.monotonic()
            reached_ready = False
            try:
                reached_ready = await self._session_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # including the exception groups anyio wraps failures in
                self.error = _describe(exc)
                if _permanent(exc):
                    await self._fail()
                    return
            finally:
                self._client = None
                self._ready.clear()
            if self._closing.is_set():
                break
            if reached_ready:
                start_failures = 0
                crashes = 0 if time.monotonic() - began > STABLE_AFTER_S else crashes + 1
                attempts, limit = crashes, MAX_CRASHES
            else:
                start_failures += 1
                attempts, limit = start_failures, MAX_START_FAILURES
            if attempts >= limit:
                await self._fail()
                return
            delay = min(BACKOFF_BASE_S * 2 ** max(attempts - 1, 0), BACKOFF_MAX_S)
            self.state = "restarting"
            await self._warn(f"MCP server '{self.name}' stopped ({self.error}); restarting in {delay:.2f}s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), delay)
        self.state = "stopped"

    async def _fail(self) -> None:
        self.state = "failed"
        self.tools = []
        self._settled.set()
        await self._warn(f"MCP server '{self.name}' failed: {self.error}")

    async def _session_once(self) -> bool:
        """Connect, list tools, then wait until the server dies or we close. True if it got ready."""
        async with AsyncExitStack() as stack:
            client = Client(
                await self._transport(stack),
                mode="legacy",  # every server speaks the initialize handshake; probing newer modes costs a round trip
                cache=None,
                client_info=mt.Implementation(name="agent-server", version="0"),
                message_handler=self._on_message,
                logging_callback=self._on_server_log,
            )
            # asyncio.timeout, not wait_for: the SDK's task groups must be entered and exited in this same task.
            async with asyncio.timeout(STARTUP_TIMEOUT_S):
                await stack.enter_async_context(client)
                tools = await self._list_tools(client)
            self.tools = tools
            self._client = client
            self.error = None
            self.state = "ready"
            self.generation += 1
            self._ready.set()
            self._settled.set()
            log.info("MCP server '%s' ready with %d tools", self.name, len(tools))
            while await self._next_event() == "relist":
                try:
                    async with asyncio.timeout(STARTUP_TIMEOUT_S):
                        self.tools = await self._list_tools(client)
                    self.generation += 1
                except Exception as exc:  # a failed re-list keeps the old tools; the server may still be fine
                    log.warning("MCP server '%s': re-listing tools failed: %s", self.name, _describe(exc))
            self._client = None
            self._ready.clear()
        return True

    async def _next_event(self) -> Literal["closing", "dead", "relist"]:
        waits = {
            asyncio.ensure_future(self._closing.wait()): "closing",
            asyncio.ensure_future(self._dead.wait()): "dead",
            asyncio.ensure_future(self._relist.wait()): "relist",
        }
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for fut in waits:
                fut.cancel()
        if self._closing.is_set():
            return "closing"
        if self._dead.is_set():
            return "dead"
        self._relist.clear()
        return "relist"

    async def _on_message(self, message: Any) -> None:
        # Must not block: the session awaits this handler while reading from the server.
        if isinstance(message, mt.ToolListChangedNotification):
            self._relist.set()

    async def _on_server_log(self, params: mt.LoggingMessageNotificationParams) -> None:
        logging.getLogger(f"{__name__}.{self.name}").info("[%s] %s: %s", self.name, params.level, params.data)

    async def _list_tools(self, client: Client) -> list[mt.Tool]:
        tools: list[mt.Tool] = []
        cursor: str | None = None
        for _ in range(100):  # a paginator that never ends must not hang startup
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def _transport(self, stack: AsyncExitStack) -> Any:
        cfg = self.config
        if cfg.transport == "http":
            assert cfg.url is not None
            http = await stack.enter_async_context(create_mcp_http_client(headers=cfg.headers or None))
            return streamable_http_client(cfg.url, http_client=http)
        if cfg.transport == "sse":
            assert cfg.url is not None
            return sse_client(cfg.url, headers=cfg.headers or None)
        assert cfg.command is not None
        params = StdioServerParameters(
            command=cfg.command, args=cfg.args, env=cfg.env or None, cwd=cfg.cwd, encoding_error_handler="replace"
        )
        read_fd, write_fd = os.pipe()
        errlog = os.fdopen(write_fd, "w")
        reader = asyncio.create_task(self._pump_stderr(read_fd), name=f"mcp-stderr:{self.name}")
        stack.push_async_callback(self._stop_reader, reader)
        stack.callback(errlog.close)  # runs first (LIFO), so the reader sees EOF even if the spawn failed
        return _ClosingErrlog(stdio_client(params, errlog=errlog), errlog)

    async def _pump_stderr(self, fd: int) -> None:
        """Server stderr goes to our log, line by line; EOF means the process is gone."""
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        pipe = os.fdopen(fd, "rb", buffering=0)
        transport: asyncio.ReadTransport | None = None
        server_log = logging.getLogger(f"{__name__}.{self.name}")
        try:
            transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
            while line := await reader.readline():
                server_log.info("[%s] %s", self.name, line.decode("utf-8", "replace").rstrip())
        except ValueError:  # a line beyond the StreamReader limit; the rest of stderr is not worth a crash
            server_log.info("[%s] (stderr line too long; output dropped)", self.name)
        finally:
            if transport is not None:
                transport.close()
            pipe.close()  # the transport closes it only on the next loop turn, which may never come at shutdown
        if not self._closing.is_set() and not self._dead.is_set():
            self._mark_dead("the server process exited")

    async def _stop_reader(self, reader: asyncio.Task[None]) -> None:
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(reader, 2.0)  # drains what the server wrote before it exited

    # --- calls ----------------------------------------------------------------------------------------

    async def _wait_client(self) -> Client | None:
        """The live client, waiting out a start or restart for up to the call timeout."""
        deadline = time.monotonic() + self.call_timeout_s
        while self.state != "failed" and not self._closing.is_set():
            if self._client is not None and self._ready.is_set():
                return self._client
            left = deadline - time.monotonic()
            if left <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ready.wait(), left)
        return None

    def _mark_dead(self, why: str) -> None:
        """Stop handing out the client at once; the supervisor restarts the server."""
        self.error = why
        self._client = None
        self._ready.clear()
        if self.state == "ready":
            self.state = "restarting"
        self._dead.set()

    async def call(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        client = await self._wait_client()
        if client is None:
            why = f": {self.error}" if self.error else ""
            return ToolResult(
                text=f"Error: MCP server '{self.name}' is not available ({self.state}{why})", is_error=True
            )
        timeout = self.call_timeout_s
        try:
            result = await asyncio.wait_for(
                client.call_tool(tool, arguments, read_timeout_seconds=timeout), timeout + 1
            )
        except asyncio.CancelledError:
            raise
        except MCPError as exc:
            if exc.code == mt.REQUEST_TIMEOUT:
                return self._timed_out(tool)
            if exc.code == mt.CONNECTION_CLOSED:
                return await self._crashed(tool, "the connection closed")
            return ToolResult(text=f"Error: {self.name}.{tool} failed: {exc.message}", is_error=True)
        except TimeoutError:
            return self._timed_out(tool)
        except Exception as exc:  # any transport error ends the session
            return await self._crashed(tool, _describe(exc))
        return to_tool_result(result)

    async def request(self, action: Callable[[Client], Awaitable[T]], wait: bool = True) -> T | None:
        """Any other MCP request (prompts, resources) on the live session, within the call timeout; None when the
        server is not ready (without `wait`: not ready now). Errors propagate (MCPError, TimeoutError)."""
        client = await self._wait_client() if wait else (self._client if self._ready.is_set() else None)
        if client is None:
            return None
        return await asyncio.wait_for(action(client), self.call_timeout_s)

    def _timed_out(self, tool: str) -> ToolResult:
        return ToolResult(
            text=f"Error: {self.name}.{tool} did not answer within {self.call_timeout_s:g}s (tools.mcp_call_timeout_s)",
            is_error=True,
        )

    async def _crashed(self, tool: str, why: str) -> ToolResult:
        self._mark_dead(f"crashed during {tool}: {why}")
        return ToolResult(
            text=f"Error: MCP server '{self.name}' crashed during {tool} ({why}); it is being restarted",
            is_error=True,
        )

    async def aclose(self) -> None:
        self._closing.set()
        if self._task is not None:
            try:
                # stdio shutdown is bounded inside the SDK (close stdin, SIGTERM, SIGKILL: ~6s at worst)
                await asyncio.wait_for(asyncio.shield(self._task), 10.0)
            except TimeoutError:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self._task
            except Exception as exc:  # closing must not fail
                log.debug("MCP server '%s' closed with %s", self.name, exc)
        self.state = "stopped"


class _ClosingErrlog:
    """Wraps the stdio transport: once the process is spawned, drop our end of its stderr pipe.

    The child keeps its own copy, so EOF on the pipe then means "the server process exited"."""

    def __init__(self, inner: Any, errlog: Any) -> None:
        self._inner = inner
        self._errlog = errlog

    async def __aenter__(self) -> Any:
        streams = await self._inner.__aenter__()
        self._errlog.close()
        return streams

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)
