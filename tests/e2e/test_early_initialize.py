"""`initialize` is answered before pygls loads (protocol/early_initialize.py): the same answer pygls gives, exactly
once, without waiting for the heavy imports; the server then works as usual."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

GATE = """
import importlib.abc, os, sys, time
class _Gate(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pygls":
            gate = os.environ["PYGLS_GATE"]
            while not os.path.exists(gate):  # pygls may load only once the test opened the gate
                time.sleep(0.05)
        return None
sys.meta_path.insert(0, _Gate())
"""


class RawClient:
    """Counts every message by id: the point is "exactly one answer"."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.messages: list[dict[str, Any]] = []

    @classmethod
    async def start(cls, env: dict[str, str], cwd: Path) -> RawClient:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "agent_server", "serve",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
            env={**os.environ, **env}, cwd=cwd,
        )  # fmt: skip
        return cls(proc)

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        length = 0
        while True:
            line = await self.proc.stdout.readline()
            assert line, "the server closed stdout"
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
            elif line in (b"\r\n", b"\n"):
                break
        message: dict[str, Any] = json.loads(await self.proc.stdout.readexactly(length))
        self.messages.append(message)
        return message

    async def answer_to(self, msg_id: int, wait_s: float = 60) -> dict[str, Any]:
        async def wait() -> dict[str, Any]:
            while True:
                message = await self.read()
                if message.get("id") == msg_id and "method" not in message:
                    return message

        return await asyncio.wait_for(wait(), wait_s)

    async def close(self) -> None:
        self.send({"jsonrpc": "2.0", "id": 999, "method": "shutdown"})
        self.send({"jsonrpc": "2.0", "method": "exit"})
        try:
            await asyncio.wait_for(self.proc.wait(), 15)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


def initialize(capabilities: dict[str, Any], root: Path) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": capabilities},
    }


@pytest.mark.parametrize(
    "capabilities",
    [
        {},
        {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
        {"general": {"positionEncodings": ["utf-32"]}},
        {"general": {"positionEncodings": ["latin-1"]}, "workspace": {"configuration": True}},
    ],
)
async def test_the_early_answer_is_the_answer_pygls_gives(
    capabilities: dict[str, Any], workspace: Path, tmp_path: Path
) -> None:
    answers = []
    for early in ("1", "0"):
        env = {"AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"), "AGENT_SERVER_EARLY_INITIALIZE": early}
        client = await RawClient.start(env, tmp_path)
        client.send(initialize(capabilities, workspace))
        answers.append((await client.answer_to(1))["result"])
        await client.close()
    assert answers[0] == answers[1]


async def test_initialize_does_not_wait_for_pygls_and_is_answered_once(workspace: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(GATE)
    gate = tmp_path / "gate"
    env = {
        "AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"),
        "PYTHONPATH": str(site),
        "PYGLS_GATE": str(gate),
    }
    client = await RawClient.start(env, tmp_path)
    try:
        client.send(initialize({}, workspace))
        # pygls cannot load before the gate opens, so this answer can only come from the early path.
        first = await client.answer_to(1, wait_s=60)
        assert first["result"]["serverInfo"]["name"] == "agent-server"
        gate.write_text("open")
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        client.send({"jsonrpc": "2.0", "id": 2, "method": "agent/session/new", "params": {"cwd": str(workspace)}})
        created = await client.answer_to(2, wait_s=120)
        assert created["result"]["sessionId"].startswith("sess_")
        client.send({"jsonrpc": "2.0", "id": 3, "method": "agent/session/list", "params": {}})
        await client.answer_to(3, wait_s=60)
        answers_to_1 = [m for m in client.messages if m.get("id") == 1 and "method" not in m]
        assert len(answers_to_1) == 1, "initialize is answered exactly once"
    finally:
        gate.write_text("open")
        await client.close()
