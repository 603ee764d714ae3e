"""A small, real LSP client for end-to-end tests: the server runs as a subprocess, we speak framed JSON-RPC.

It records every notification, answers server->client requests through handlers, and can send raw bytes
(for malformed-input tests). Used by the e2e tests and the relay benchmark.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tests import server_zygote

Handler = Callable[[dict[str, Any]], Awaitable[Any] | Any]


class RpcError(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        self.code = error.get("code")
        self.message = error.get("message", "")
        self.data = error.get("data")
        super().__init__(f"{self.code}: {self.message}")


class LspClient:
    def __init__(self, proc: asyncio.subprocess.Process | server_zygote.ForkedServer) -> None:
        self.proc = proc
        self._ids = itertools.count(1)
        self._pending: dict[Any, asyncio.Future[Any]] = {}
        self.notifications: list[tuple[float, str, dict[str, Any]]] = []
        self._notify_event = asyncio.Event()
        self.handlers: dict[str, Handler] = {}
        self.server_requests: list[tuple[str, dict[str, Any]]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(
        cls, args: list[str] | None = None, env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> LspClient:
        full_env = {**os.environ, **(env or {})}
        if server_zygote.usable(full_env):  # the same server, forked from one that imported it (server_zygote.py)
            where = str(cwd) if cwd else None
            return cls(await server_zygote.start(["serve", *(args or [])], full_env, where, limit=2**24))
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "agent_server", "serve", *(args or []),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=full_env, cwd=str(cwd) if cwd else None, limit=2**24,
        )  # fmt: skip
        return cls(proc)

    # --- wire -------------------------------------------------------------------------------------------

    def send_raw(self, body: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def _send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps(message).encode())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        out = self.proc.stdout
        while True:
            length = 0
            while True:
                line = await out.readline()
                if not line:
                    self._fail_all(ConnectionError("server closed stdout"))
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                elif line in (b"\r\n", b"\n"):
                    break
                elif line.lower().startswith(b"content-type:"):
                    continue
                else:
                    raise AssertionError(f"non-JSON-RPC output on stdout: {line!r}")
            body = await out.readexactly(length)
            self._dispatch(json.loads(body))

    def _fail_all(self, exc: Exception) -> None:
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(exc)

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" in msg and "id" in msg:
            task = asyncio.ensure_future(self._answer(msg))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif "method" in msg:
            self.notifications.append((time.perf_counter(), msg["method"], msg.get("params") or {}))
            self._notify_event.set()
        else:
            fut = self._pending.pop(msg.get("id"), None)
            if fut is None or fut.done():
                return
            if "error" in msg:
                fut.set_exception(RpcError(msg["error"]))
            else:
                fut.set_result(msg.get("result"))

    async def _answer(self, msg: dict[str, Any]) -> None:
        method, params = msg["method"], msg.get("params") or {}
        self.server_requests.append((method, params))
        handler = self.handlers.get(method)
        try:
            if handler is None:
                result: Any = None
                if method == "window/workDoneProgress/create":
                    result = None
                elif method == "workspace/configuration":
                    result = [None for _ in params.get("items", [])]
            else:
                result = handler(params)
                if asyncio.iscoroutine(result):
                    result = await result
            self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        except Exception as exc:
            self._send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32603, "message": str(exc)}})

    # --- API --------------------------------------------------------------------------------------------

    def request_nowait(self, method: str, params: Any = None) -> tuple[int, asyncio.Future[Any]]:
        msg_id = next(self._ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self._reader.done():  # the server's output has ended: nothing will answer (fail now, not at the timeout)
            fut.set_exception(ConnectionError("server closed stdout"))
            return msg_id, fut
        self._pending[msg_id] = fut
        self._send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return msg_id, fut

    async def request(self, method: str, params: Any = None, timeout: float = 30) -> Any:
        _, fut = self.request_nowait(method, params)
        return await asyncio.wait_for(fut, timeout)

    def notify(self, method: str, params: Any = None) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def updates(self, session_id: str | None = None) -> list[dict[str, Any]]:
        return [
            p["update"]
            for _, m, p in self.notifications
            if m == "agent/session/update" and (session_id is None or p.get("sessionId") == session_id)
        ]

    def text(self, session_id: str | None = None, kind: str = "agent_message_chunk") -> str:
        return "".join(u["content"]["text"] for u in self.updates(session_id) if u["sessionUpdate"] == kind)

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 30) -> None:
        # 30 s: a condition that holds arrives in milliseconds; the bound only decides how long a failure takes to
        # show, and a 2-core CI machine under load can take seconds to start a server and answer.
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError("condition not met in time")
            self._notify_event.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._notify_event.wait(), 0.05)

    async def initialize(
        self, root: Path, options: dict[str, Any] | None = None, capabilities: dict[str, Any] | None = None
    ) -> Any:
        caps = capabilities if capabilities is not None else {
            "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True, "resourceOperations": ["create"]}, "configuration": False},
            "window": {"workDoneProgress": True, "showMessage": {}},
        }  # fmt: skip
        result = await self.request(
            "initialize",
            {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": caps,
             "initializationOptions": options or {}, "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}]},
        )  # fmt: skip
        self.notify("initialized", {})
        return result

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.request("shutdown", None), 5)
            self.notify("exit", None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.proc.wait(), 5)
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        self._reader.cancel()

    async def stderr_text(self) -> str:
        assert self.proc.stderr is not None
        with contextlib.suppress(asyncio.TimeoutError):
            data = await asyncio.wait_for(self.proc.stderr.read(), 2)
            return data.decode(errors="replace")
        return ""
