"""The ndjson connection and the AcpClient in one process: two Connections joined by in-memory line queues, so the
paths a subprocess test cannot reach cheaply (a command that outlives its timeout in the client's terminal, a
request cancelled with $/cancel_request, error answers to our own requests) run for real."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from agent_server.acp_agent.client import AcpClient
from agent_server.acp_agent.rpc import Connection, RpcFailure
from tests.acp import wire

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]


class Lines:
    """One direction of the pipe: what one side writes, the other reads line by line (and the log records)."""

    def __init__(self, direction: str, log: list[tuple[str, str]]) -> None:
        self.queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.direction = direction
        self.log = log

    def write(self, data: bytes) -> None:
        self.log.append((self.direction, data.decode().rstrip("\n")))
        self.queue.put_nowait(data)

    async def readline(self) -> bytes:
        return await self.queue.get()


def pair(
    agent_requests: dict[str, Handler], client_requests: dict[str, Handler]
) -> tuple[Connection, Connection, list[tuple[str, str]], list[asyncio.Task[None]]]:
    log: list[tuple[str, str]] = []
    to_client, to_agent = Lines(wire.AGENT_TO_CLIENT, log), Lines(wire.CLIENT_TO_AGENT, log)
    agent = Connection(to_client.write, agent_requests, {})
    client = Connection(to_agent.write, client_requests, {})
    tasks = [asyncio.ensure_future(agent.serve(to_agent)), asyncio.ensure_future(client.serve(to_client))]
    return agent, client, log, tasks


async def _stop(tasks: list[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_command_past_its_timeout_is_killed_in_the_clients_terminal(tmp_path: Path) -> None:
    calls: list[str] = []
    exited = asyncio.Event()

    def handler(method: str, result: dict[str, Any] | None = None) -> Handler:
        async def answer(params: dict[str, Any]) -> dict[str, Any]:
            calls.append(method)
            if method == "terminal/wait_for_exit":
                await exited.wait()  # never on its own: only kill ends it
                return {"exitCode": None, "signal": "SIGKILL"}
            if method == "terminal/kill":
                exited.set()
            return result or {}

        return answer

    client_side = {
        "terminal/create": handler("terminal/create", {"terminalId": "t1"}),
        "terminal/wait_for_exit": handler("terminal/wait_for_exit"),
        "terminal/kill": handler("terminal/kill"),
        "terminal/output": handler(
            "terminal/output", {"output": "started\n", "truncated": False, "exitStatus": {"signal": "SIGKILL"}}
        ),
        "terminal/release": handler("terminal/release"),
    }
    agent, _client, log, tasks = pair({}, client_side)
    try:
        run = await AcpClient(agent).run_command("sess_1", "sleep 600", tmp_path, {}, 0.2, 1000)
    finally:
        await _stop(tasks)
    assert run.timed_out and run.exit_code is None and run.output == "started\n"
    assert calls == [
        "terminal/create",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/output",
        "terminal/release",
    ]
    wire.check(log)


async def test_a_cancelled_turn_still_releases_the_terminal(tmp_path: Path) -> None:
    calls: list[str] = []
    created = asyncio.Event()

    async def create(params: dict[str, Any]) -> dict[str, Any]:
        calls.append("create")
        created.set()
        return {"terminalId": "t9"}

    waiting = asyncio.Event()

    async def wait_forever(params: dict[str, Any]) -> dict[str, Any]:
        waiting.set()
        await asyncio.Event().wait()
        return {}

    async def release(params: dict[str, Any]) -> dict[str, Any]:
        calls.append("release")
        return {}

    agent, _client, _log, tasks = pair(
        {}, {"terminal/create": create, "terminal/wait_for_exit": wait_forever, "terminal/release": release}
    )
    try:
        run = asyncio.ensure_future(AcpClient(agent).run_command("s", "sleep 600", tmp_path, {}, 600, 1000))
        await created.wait()
        await waiting.wait()
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        for _ in range(100):
            if "release" in calls:
                break
            await asyncio.sleep(0.01)
    finally:
        await _stop(tasks)
    assert calls == ["create", "release"]


async def test_cancel_request_answers_the_request_with_an_error_once() -> None:
    started = asyncio.Event()

    async def slow(params: dict[str, Any]) -> dict[str, Any]:
        started.set()
        await asyncio.Event().wait()
        return {}

    _agent, client, log, tasks = pair({"session/list": slow}, {})
    try:
        pending = asyncio.ensure_future(client.request("session/list", {}))
        await started.wait()
        client.notify("$/cancel_request", {"requestId": 1})
        with pytest.raises(RpcFailure) as failure:
            await pending
    finally:
        await _stop(tasks)
    assert failure.value.code == -32800
    answers = [line for direction, line in log if direction == wire.AGENT_TO_CLIENT]
    assert len(answers) == 1


async def test_an_error_answer_from_the_client_fails_only_that_request() -> None:
    async def refuse(params: dict[str, Any]) -> dict[str, Any]:
        raise RpcFailure(-32000, "the editor said no", {"why": "read-only buffer"})

    async def fine(params: dict[str, Any]) -> dict[str, Any]:
        return {"content": "text"}

    agent, _client, _log, tasks = pair({}, {"fs/write_text_file": refuse, "fs/read_text_file": fine})
    acp_client = AcpClient(agent)
    try:
        with pytest.raises(RpcFailure) as failure:
            await acp_client.write_text_file("s", Path("/w/a.txt"), "x")
        assert await acp_client.read_text_file("s", Path("/w/a.txt")) == "text"
    finally:
        await _stop(tasks)
    assert failure.value.code == -32000 and failure.value.data == {"why": "read-only buffer"}


def test_capabilities_are_only_what_the_client_says() -> None:
    client = AcpClient(Connection(lambda data: None, {}, {}))
    client.configure({"fs": {"readTextFile": True, "writeTextFile": "yes"}, "terminal": 1})
    assert client.features.files is client and client.can_read and not client.can_write
    assert client.features.terminal is None
    client.configure(None)
    assert client.features.files is None and client.features.terminal is None
    client.configure({"terminal": True, "fs": []})
    assert client.features.terminal is client and client.features.files is None


async def test_the_clients_terminal_runs_the_command_under_the_shell_the_policy_parsed(tmp_path: Path) -> None:
    """terminal/create gets bash by its path, not `/bin/sh` (dash on Debian), with variables that would make bash
    read a file first emptied: a client that runs exactly what it is given runs what the policy approved."""
    import os
    import subprocess

    ran: dict[str, Any] = {}

    async def create(params: dict[str, Any]) -> dict[str, Any]:
        env = {**os.environ, "BASH_ENV": str(tmp_path / "evil-env.sh")}
        env.update({e["name"]: e["value"] for e in params.get("env", [])})
        argv = [params["command"], *params["args"]]
        proc = await asyncio.to_thread(subprocess.run, argv, cwd=params["cwd"], env=env, capture_output=True)
        ran.update(params=params, code=proc.returncode, out=proc.stdout.decode() + proc.stderr.decode())
        return {"terminalId": "t1"}

    async def output(params: dict[str, Any]) -> dict[str, Any]:
        return {"output": ran["out"], "truncated": False, "exitStatus": {"exitCode": ran["code"]}}

    async def empty(params: dict[str, Any]) -> dict[str, Any]:
        return {}

    (tmp_path / "evil-env.sh").write_text(f"touch {tmp_path / 'bash-env-ran'}\n")
    marker = tmp_path / "outside" / "M"
    marker.parent.mkdir()
    client_side = {"terminal/create": create, "terminal/wait_for_exit": empty, "terminal/output": output,
                   "terminal/release": empty}  # fmt: skip
    agent, _client, _log, tasks = pair({}, client_side)
    try:
        for command in (f"ls -la &>/dev/null touch {marker}", f"ls &>>/dev/null touch {marker}"):
            await AcpClient(agent).run_command("s", command, tmp_path, {}, 30, 1000)
            assert os.path.basename(ran["params"]["command"]) == "bash", ran["params"]
            assert ran["params"]["args"][-2:] == ["-c", command]
            assert not marker.exists(), f"{command!r} ran `touch` in the client's terminal"
    finally:
        await _stop(tasks)
    assert not (tmp_path / "bash-env-ran").exists()
