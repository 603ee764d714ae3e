"""run_command: a shell command in its own process group, inside the workspace, with a timeout.

The whole group is killed (SIGTERM, then SIGKILL) on timeout, on cancellation, and when the command exits
while background children still hold its output open, so no process outlives the call.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
from collections import deque
from pathlib import Path
from typing import Any

from pydantic import Field

from .. import acp
from ..errors import ToolError
from .base import LeanForm, ToolContext, ToolResult
from .definition import BuiltinTool, ToolArgs, lean_object, path_location, short
from .preview import Preview
from .sandbox import resolve
from .shell_exec import NoBashError, shell_argv, shell_env

KILL_GRACE_S = 2.0
DRAIN_GRACE_S = 0.5  # how long output may keep flowing after the shell exits (background children)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")


class _Output:
    """Merged stdout+stderr, keeping only the head and the tail when it is long."""

    def __init__(self, budget: int) -> None:
        self.head_budget = budget // 2
        self.tail_budget = budget - self.head_budget
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_budget - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail.append(chunk)
            self.tail_size += len(chunk)
            while self.tail and self.tail_size - len(self.tail[0]) >= self.tail_budget:
                self.tail_size -= len(self.tail.popleft())

    def text(self) -> str:
        tail = b"".join(self.tail)
        cut = self.total - len(self.head) - min(len(tail), self.tail_budget)
        if cut > 0:
            tail = tail[-self.tail_budget :]
            marker = (
                f"\n[... {cut} bytes of output cut to fit the context window; to see them, run the command again "
                "narrowed (| grep PATTERN, | head -n N, | tail -n N, | sed -n 'A,Bp') ...]\n"
            )
            body = self._decode(bytes(self.head)) + marker + self._decode(tail)
        else:
            body = self._decode(bytes(self.head) + tail)
        return body.strip("\n")

    @staticmethod
    def _decode(data: bytes) -> str:
        return _ANSI.sub("", data.decode("utf-8", errors="replace")).replace("\r\n", "\n")


def _signal_group(pgid: int, sig: signal.Signals) -> bool:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


async def kill_group(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the process group, give it a moment, then SIGKILL whatever is left (even if cancelled meanwhile)."""
    pgid = proc.pid
    if not _signal_group(pgid, signal.SIGTERM):
        return
    try:
        if proc.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(_exited(proc), KILL_GRACE_S)
    finally:
        _signal_group(pgid, signal.SIGKILL)


async def _exited(proc: asyncio.subprocess.Process) -> None:
    """Wait for the shell itself to exit. (On Python 3.11 `proc.wait()` also waits for every holder of its
    pipes, so a background child would block it until the timeout.)"""
    delay = 0.005
    while proc.returncode is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)


async def _pump(stream: asyncio.StreamReader, out: _Output) -> None:
    while chunk := await stream.read(65536):
        out.add(chunk)


async def _spawn(command: str, cwd: Path, env: dict[str, str]) -> asyncio.subprocess.Process:
    """Start bash (the shell whose grammar the policy used: `shell_exec.py`) in its own session; if cancelled
    meanwhile, still kill its whole group before re-raising.

    (asyncio kills only the shell itself when its creation is cancelled, orphaning the children.)
    """
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *shell_argv(command),
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    )
    try:
        return await asyncio.shield(spawn)
    except asyncio.CancelledError:
        try:
            proc = await spawn
        except Exception:
            raise asyncio.CancelledError() from None
        await kill_group(proc)
        raise


MAX_TIMEOUT_S = 3600  # the longest a command may be given (an int: the schema says 3600)


class RunCommandArgs(ToolArgs):
    command: str
    """The shell command line."""
    cwd: str | None = None
    """Folder to run in, relative to the workspace (default: root)."""
    timeout_s: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_S)
    """Seconds before the command is stopped."""


class RunCommand(BuiltinTool[RunCommandArgs]):
    name = "run_command"
    args = RunCommandArgs
    kind = "execute"
    policy = "ask"
    lean = LeanForm("Run a shell command; returns exit code and output.", lean_object(["command"]), 70)

    def describe(self) -> str:
        return (
            "Run a shell command in the workspace and return its exit code and output (stdout and stderr "
            f"merged). No input is available. Default timeout {self.config.command_timeout_s:g}s."
        )

    def title(self, args: dict[str, Any]) -> str:
        return f"Run `{short(args['command'])}`"

    def locations(self, ctx: ToolContext, args: dict[str, Any]) -> list[acp.ToolCallLocation]:
        return path_location(ctx, args, "cwd")

    async def preview(self, ctx: ToolContext, args: RunCommandArgs) -> Preview:
        cwd = _folder(ctx, args)
        return Preview(
            content=[acp.Content(content=acp.TextContent(text=f"$ {args.command}\n\nin {cwd}"))],
            locations=[acp.ToolCallLocation(path=str(cwd))],
            resolved={"cwd": str(cwd)},
        )

    async def run(self, ctx: ToolContext, args: RunCommandArgs) -> ToolResult:
        budget = max(self.config.result_limit - 300, 200)
        # In a small window the output must fit a page of the turn's budget (head and tail are kept).
        output_budget = min(budget, max(200, (ctx.page_chars or budget) - 300))
        timeout = args.timeout_s or self.config.command_timeout_s
        return await run_shell(ctx, args.command, _folder(ctx, args), timeout, output_budget)


def _folder(ctx: ToolContext, args: RunCommandArgs) -> Path:
    cwd = resolve(ctx.roots, args.cwd or ".", must_exist=True)
    if not cwd.is_dir():
        raise ToolError(f"cwd '{args.cwd}' is not a directory")
    return cwd


async def run_shell(ctx: ToolContext, command: str, cwd: Path, timeout_s: float, output_budget: int) -> ToolResult:
    """`command` under bash in `cwd` (in the client's terminal when it offers one), stopped after `timeout_s`."""
    timeout = timeout_s
    if ctx.client.features.terminal is not None:  # the client runs it where the user can watch
        from .client_command import run_in_client_terminal

        return await run_in_client_terminal(ctx, ctx.client.features.terminal, command, cwd, timeout, output_budget)
    env = shell_env({**os.environ, "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"})
    try:
        proc = await _spawn(command, cwd, env)
    except NoBashError as exc:
        raise ToolError(str(exc)) from None
    out = _Output(output_budget)
    assert proc.stdout is not None
    pump = asyncio.create_task(_pump(proc.stdout, out))
    timed_out = False
    try:
        try:
            await asyncio.wait_for(_exited(proc), timeout)
        except TimeoutError:
            timed_out = True
        if not timed_out:
            # Background children may keep the pipe open; collect what they wrote, then stop them.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(pump), DRAIN_GRACE_S)
    finally:
        await kill_group(proc)
        # With the group gone the pipe reaches EOF: let the pump and the process transport finish, so nothing
        # is left for the event loop to close later. A child that left the group may hold the pipe: bounded.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(pump), DRAIN_GRACE_S)
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pump
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), DRAIN_GRACE_S)
    output = out.text() or "(no output)"
    if timed_out:
        text = f"Command timed out after {timeout:g}s and was stopped (its whole process group).\nOutput:\n{output}"
        return ToolResult(text=text, is_error=True, raw_output={"exit_code": None, "timed_out": True})
    code = proc.returncode
    text = f"Exit code: {code}\nOutput:\n{output}"
    return ToolResult(text=text, is_error=code != 0, raw_output={"exit_code": code, "timed_out": False})
