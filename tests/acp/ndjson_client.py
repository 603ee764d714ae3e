"""A minimal ACP client for Python-level tests: `agent-server acp` as a subprocess, ndjson both ways, every line
recorded (and checked: nothing but JSON-RPC may come out of stdout)."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tests import server_zygote

Answer = Callable[[dict[str, Any]], Awaitable[Any]]


class AcpProcess:
    def __init__(self, proc: asyncio.subprocess.Process | server_zygote.ForkedServer) -> None:
        self.proc = proc
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self.notifications: list[dict[str, Any]] = []
        self.wire: list[tuple[str, str]] = []  # (direction, line) in order, for tests/acp/wire.check
        self.raw_lines = False  # set once a test writes a line by hand (deliberately invalid input)
        self.answers: dict[str, Answer] = {}  # client-side methods the agent may call
        self._ids = itertools.count(1)
        self._pending: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._answering: set[asyncio.Task[None]] = set()
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, args: list[str], env: dict[str, str], cwd: Path) -> AcpProcess:
        full_env = {**os.environ, **env}
        if server_zygote.usable(full_env):  # the same agent, forked from one that imported it (server_zygote.py)
            return cls(await server_zygote.start(["acp", *args], full_env, str(cwd), limit=64 << 20))
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "agent_server",
            "acp",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=full_env,
            cwd=cwd,
            limit=64 << 20,
        )
        return cls(proc)

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while line := await self.proc.stdout.readline():
            self.wire.append(("agent->client", line.decode().rstrip("\n")))
            message = json.loads(line)  # anything else on stdout fails the test here
            assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", line
            self.received.append(message)
            if "method" in message and "id" in message:
                task = asyncio.ensure_future(self._answer(message))
                self._answering.add(task)
                task.add_done_callback(self._answering.discard)
            elif "method" in message:
                self.notifications.append(message)
            else:
                future = self._pending.pop(message.get("id"), None)
                if future is not None and not future.done():
                    future.set_result(message)
                else:
                    self.notifications.append(message)  # an answer to a raw line we sent (id null)

    async def _answer(self, message: dict[str, Any]) -> None:
        handler = self.answers.get(message["method"])
        if handler is None:
            self.write({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}})
            return
        self.write({"jsonrpc": "2.0", "id": message["id"], "result": await handler(message["params"])})

    def write(self, message: dict[str, Any]) -> None:
        self.sent.append(message)
        line = json.dumps(message)
        self.wire.append(("client->agent", line))
        self._send(line.encode() + b"\n")

    def raw(self, data: bytes) -> None:
        self.raw_lines = True
        self._send(data)

    def _send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    async def call(self, method: str, params: Any, wait_s: float = 30) -> dict[str, Any]:
        """The whole answer (result or error)."""
        msg_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        self.write({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return await asyncio.wait_for(future, wait_s)

    async def request(self, method: str, params: Any, wait_s: float = 30) -> Any:
        answer = await self.call(method, params, wait_s)
        assert "result" in answer, answer
        return answer["result"]

    def notify(self, method: str, params: Any) -> None:
        self.write({"jsonrpc": "2.0", "method": method, "params": params})

    async def next_unsolicited(self, wait_s: float = 10) -> dict[str, Any]:
        """Wait for the next answer to a raw line (id null or unknown)."""
        start = len(self.notifications)

        async def wait() -> dict[str, Any]:
            while True:
                for message in self.notifications[start:]:
                    if "method" not in message:
                        return message
                await asyncio.sleep(0.01)

        return await asyncio.wait_for(wait(), wait_s)

    def updates(self, session_id: str) -> list[dict[str, Any]]:
        return [
            n["params"]["update"]
            for n in self.notifications
            if n.get("method") == "session/update" and n["params"]["sessionId"] == session_id
        ]

    async def close(self) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 15)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        await asyncio.gather(self._reader, return_exceptions=True)
        assert self.proc.stderr is not None
        return (await self.proc.stderr.read()).decode(errors="replace")
