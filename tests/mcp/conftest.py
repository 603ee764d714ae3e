"""Real MCP servers for the tests: the stdio fake spawned per manager, the HTTP fake once per module."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from agent_server.tools.base import Tool, ToolContext, ToolResult

FAKES = Path(__file__).resolve().parents[1] / "fakes"
STDIO_SERVER = FAKES / "mcp_stdio_server.py"
HTTP_SERVER = FAKES / "mcp_http_server.py"
HTTP_TOKEN = "Bearer test-token-123"


def stdio_spec(call_log: Path, **extra: Any) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(STDIO_SERVER)],
        "env": {"FAKE_MCP_CALL_LOG": str(call_log)},
        **extra,
    }


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, str(HTTP_SERVER)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "FAKE_MCP_TOKEN": HTTP_TOKEN},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("PORT "), f"HTTP fake did not start: {line!r}"
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


def ctx(tmp: Path) -> ToolContext:
    # MCP tools never touch the editor client; the context is only part of the handler signature.
    return ToolContext(session_id="s1", roots=[tmp], client=cast(Any, None))


async def call(tools: list[Tool], name: str, args: dict[str, Any], tmp: Path) -> ToolResult:
    by_name = {t.name: t for t in tools}
    assert name in by_name, f"{name} not offered; have {sorted(by_name)}"
    return await by_name[name].handler(ctx(tmp), args)
