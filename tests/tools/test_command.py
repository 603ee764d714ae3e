from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from agent_server.config import ToolsConfig
from agent_server.tools.base import ToolContext
from tests.tools.builtin_registry import default_registry

registry = default_registry()


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def wait_gone(pid: int) -> bool:
    for _ in range(200):  # a bounded wait for the kernel to finish the kill, not a timing assertion
        if not alive(pid):
            return True
        await asyncio.sleep(0.02)
    return False


async def wait_for_file(path: Path) -> str:
    for _ in range(500):
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} never appeared")


async def test_output_and_exit_code(ctx: ToolContext) -> None:
    result = await registry.execute(ctx, "run_command", {"command": "echo out; echo err >&2; exit 3"})
    assert result.text == "Exit code: 3\nOutput:\nout\nerr"
    assert result.is_error and result.raw_output == {"exit_code": 3, "timed_out": False}
    ok = await registry.execute(ctx, "run_command", {"command": "true"})
    assert ok.text == "Exit code: 0\nOutput:\n(no output)" and not ok.is_error


async def test_runs_in_the_workspace_and_cwd_is_sandboxed(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    here = await registry.execute(ctx, "run_command", {"command": "pwd", "cwd": "sub"})
    assert here.text.endswith(str((workspace / "sub").resolve()))
    escape = await registry.execute(ctx, "run_command", {"command": "pwd", "cwd": "../.."})
    assert escape.is_error and "outside the workspace" in escape.text


async def test_timeout_kills_the_whole_process_group(ctx: ToolContext, workspace: Path) -> None:
    # The child ignores SIGTERM, so only the SIGKILL that follows stops it.
    command = "sh -c 'trap \"\" TERM; sleep 300' & echo $! > child.pid; echo started; wait"
    result = await registry.execute(ctx, "run_command", {"command": command, "timeout_s": 1})
    assert result.is_error and "timed out after 1s" in result.text and "started" in result.text
    pid = int((workspace / "child.pid").read_text())
    assert await wait_gone(pid), "the background child survived the timeout"


async def test_cancellation_kills_the_whole_process_group(ctx: ToolContext, workspace: Path) -> None:
    command = "sleep 300 & echo $! > child.pid; wait"
    task = asyncio.create_task(registry.execute(ctx, "run_command", {"command": command}))
    pid = int(await wait_for_file(workspace / "child.pid"))
    assert alive(pid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    gone = await wait_gone(pid)
    assert gone, Path(f"/proc/{pid}/stat").read_text()


async def test_background_children_do_not_hang_the_call(ctx: ToolContext, workspace: Path) -> None:
    result = await registry.execute(ctx, "run_command", {"command": "sleep 300 & echo $! > bg.pid; echo done"})
    assert result.text == "Exit code: 0\nOutput:\ndone"
    assert await wait_gone(int((workspace / "bg.pid").read_text()))


async def test_long_output_keeps_head_and_tail(ctx: ToolContext) -> None:
    small = default_registry(ToolsConfig(result_limit=1000))
    result = await small.execute(ctx, "run_command", {"command": "seq 1 100000"})
    lines = result.text.splitlines()
    assert lines[:3] == ["Exit code: 0", "Output:", "1"]
    assert lines[-1] == "100000"
    assert "bytes of output cut" in result.text and len(result.text) <= 1000


async def test_stdin_is_closed(ctx: ToolContext) -> None:
    result = await registry.execute(ctx, "run_command", {"command": "cat; echo after"})
    assert result.text.endswith("after")


async def test_default_timeout_comes_from_settings(ctx: ToolContext) -> None:
    quick = default_registry(ToolsConfig(command_timeout_s=0.5))
    result = await quick.execute(ctx, "run_command", {"command": "sleep 30"})
    assert "timed out after 0.5s" in result.text
    assert os.getpgrp() != 0  # we are still alive: the kill hit only the command's own group
