"""Running hooks: one program per matching hook, the event as JSON on stdin, a hard timeout, and the exit code as
the answer (Claude Code's convention, so hook scripts written for it mostly work):

- exit 0: fine, the call goes on;
- exit 2: `PreToolUse` blocks the call, its stderr is the reason the model reads; `PostToolUse` adds its stderr to
  the result the model reads; for `Stop` it is reported to the user;
- any other exit, a program that cannot start, or a timeout: reported to the user, and the turn goes on as if the
  hook had not run. A hook never hangs a turn: it is killed (its whole process group) at `timeout_s`, and when
  the turn is cancelled.

A hook's stdout and stderr are read as it writes them, and only their first `MAX_KEPT` bytes are kept (the model or
the user reads `MAX_OUTPUT` characters, said to be cut when there was more): a hook printing without end (`yes`)
costs no memory while it runs to its timeout.

Hooks come from the user's settings, and from a workspace's `.agent-server.toml` only once the user trusted that
workspace (config_layers.py withholds them before; `hooks` is a key that "runs programs" in trust.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import json
import logging
import os
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import HooksConfig, HookSpec
from ..tools.base import ToolResult

if TYPE_CHECKING:
    from ..messages import ToolCall
    from ..tools.base import Tool

log = logging.getLogger(__name__)
BLOCK = 2
MAX_OUTPUT = 4000  # characters of a hook's stderr the model or the user gets
MAX_KEPT = 4 * MAX_OUTPUT + 4096  # bytes of each stream kept: MAX_OUTPUT characters of UTF-8 after blank lines
READ_SIZE = 65536
Notify = Callable[[str], Awaitable[None]]


@dataclass(frozen=True)
class HookRun:
    code: int | None
    """None: it did not finish (timed out, or could not start)."""
    stdout: str = ""
    stderr: str = ""
    problem: str | None = None


def matches(spec: HookSpec, tool_name: str) -> bool:
    return any(fnmatch.fnmatchcase(tool_name, alt.strip()) for alt in spec.matcher.split("|") if alt.strip())


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def run_hook(spec: HookSpec, payload: dict[str, Any], cwd: Path) -> HookRun:
    """Run one hook to its end or its timeout; never raises for the program's own failures."""
    data = json.dumps(payload).encode()
    env = {**os.environ, "AGENT_SERVER_HOOK_EVENT": str(payload.get("hook_event_name", ""))}
    try:
        if isinstance(spec.command, str):
            process = await asyncio.create_subprocess_shell(
                spec.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=cwd,
                env=env,
                start_new_session=True,  # its own process group: a timeout kills what it started too
            )
        else:
            process = await asyncio.create_subprocess_exec(
                *spec.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=cwd,
                env=env,
                start_new_session=True,
            )
    except OSError as exc:
        return HookRun(None, problem=f"could not start: {exc}")
    try:
        out, err = await asyncio.wait_for(_talk(process, data), spec.timeout_s)
    except TimeoutError:
        _kill(process)
        with contextlib.suppress(TimeoutError):  # killed: its exit status is not worth waiting on
            await asyncio.wait_for(process.wait(), 5)
        return HookRun(None, problem=f"timed out after {spec.timeout_s:g} s and was stopped")
    except BaseException:  # cancelled with the turn: the hook goes too
        _kill(process)
        raise
    finally:
        if process.returncode is None:
            _kill(process)
    return HookRun(process.returncode, out.text(), err.text())


@dataclass
class _Kept:
    """The start of what a hook wrote to one stream, and how much it wrote in all."""

    data: bytearray = field(default_factory=bytearray)
    total: int = 0

    def text(self) -> str:
        text = self.data.decode("utf-8", errors="replace").strip()
        if len(text) <= MAX_OUTPUT and self.total <= len(self.data):
            return text
        return f"{text[:MAX_OUTPUT]}\n[... cut: the hook wrote {self.total:,} bytes]"


async def _talk(process: asyncio.subprocess.Process, data: bytes) -> tuple[_Kept, _Kept]:
    """`communicate` with a bound: the event on stdin, both outputs read to their end, their start kept."""
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None

    async def feed(stdin: asyncio.StreamWriter) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a hook need not read its event
            stdin.write(data)
            await stdin.drain()
        stdin.close()

    async def drain(stream: asyncio.StreamReader) -> _Kept:
        kept = _Kept()
        while chunk := await stream.read(READ_SIZE):
            kept.total += len(chunk)
            if len(kept.data) < MAX_KEPT:
                kept.data += chunk[: MAX_KEPT - len(kept.data)]
            # A read of buffered data returns without yielding: a hook that writes faster than we read (`yes`)
            # would keep the event loop here, its timeout never firing and no other request answered.
            await asyncio.sleep(0)
        return kept

    _, out, err = await asyncio.gather(feed(process.stdin), drain(process.stdout), drain(process.stderr))
    await process.wait()
    return out, err


def _name(spec: HookSpec) -> str:
    text = spec.command if isinstance(spec.command, str) else " ".join(spec.command)
    return text if len(text) <= 80 else text[:77] + "..."


class Hooks:
    """The hooks of one turn, as `Turn.before_tool` / `after_tool` and the end-of-turn call."""

    def __init__(self, config: HooksConfig, cwd: Path, session_id: str, notify: Notify) -> None:
        self.config = config
        self.cwd = cwd
        self.session_id = session_id
        self.notify = notify

    @property
    def active(self) -> bool:
        return bool(self.config.pre_tool_use or self.config.post_tool_use or self.config.stop)

    def _payload(self, event: str, **extra: Any) -> dict[str, Any]:
        return {"hook_event_name": event, "session_id": self.session_id, "cwd": str(self.cwd), **extra}

    async def _run(self, event: str, spec: HookSpec, payload: dict[str, Any]) -> HookRun:
        run = await run_hook(spec, payload, self.cwd)
        if run.problem is not None or run.code not in (0, BLOCK):
            why = run.problem or f"exited with {run.code}" + (f": {run.stderr}" if run.stderr else "")
            await self.notify(f"{event} hook `{_name(spec)}` {why}; the turn goes on without it.")
        return run

    async def before(self, tool: Tool, call: ToolCall) -> str | None:
        """The reason the first blocking `PreToolUse` hook gave, or None when the call may go on."""
        payload = self._payload("PreToolUse", tool_name=tool.name, tool_input=call.arguments)
        for spec in self.config.pre_tool_use:
            if not matches(spec, tool.name):
                continue
            run = await self._run("PreToolUse", spec, payload)
            if run.code == BLOCK:
                return run.stderr or run.stdout or f"blocked by the hook `{_name(spec)}`"
        return None

    async def after(self, tool: Tool, call: ToolCall, result: ToolResult) -> ToolResult:
        response = {"text": result.text[: MAX_OUTPUT * 4], "is_error": result.is_error}
        payload = self._payload("PostToolUse", tool_name=tool.name, tool_input=call.arguments, tool_response=response)
        notes: list[str] = []
        for spec in self.config.post_tool_use:
            if not matches(spec, tool.name):
                continue
            run = await self._run("PostToolUse", spec, payload)
            if run.code == BLOCK and (run.stderr or run.stdout):
                notes.append(run.stderr or run.stdout)
        if not notes:
            return result
        extra = "\n".join(f"[hook: {note}]" for note in notes)
        return replace(result, text=f"{result.text}\n\n{extra}")

    async def stop(self, stop_reason: str) -> None:
        payload = self._payload("Stop", stop_reason=stop_reason)
        for spec in self.config.stop:
            run = await self._run("Stop", spec, payload)
            if run.code == BLOCK and (run.stderr or run.stdout):
                await self.notify(f"Stop hook `{_name(spec)}`: {run.stderr or run.stdout}")


def chain(
    *steps: Callable[[Tool, ToolCall, ToolResult], Awaitable[ToolResult]] | None,
) -> Callable[[Tool, ToolCall, ToolResult], Awaitable[ToolResult]] | None:
    """One `after_tool` step from several (scoped rules, then hooks)."""
    present = [s for s in steps if s is not None]
    if not present:
        return None

    async def run(tool: Tool, call: ToolCall, result: ToolResult) -> ToolResult:
        for step in present:
            result = await step(tool, call, result)
        return result

    return run
