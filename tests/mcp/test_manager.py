"""McpManager against real MCP servers: a stdio subprocess and a streamable-HTTP server on loopback."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from agent_server import acp
from agent_server.tools.mcp import McpManager, describe_servers

from .conftest import HTTP_TOKEN, call, stdio_spec


def _exists(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def _alive(pid: int) -> bool:
    """True if the process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def test_stdio_server_tools_are_listed_and_called(tmp_path: Path) -> None:
    manager = McpManager({"fake": stdio_spec(tmp_path / "calls.log")}, cwd=tmp_path)
    await manager.start()
    # start() returns before the server is up: the first turn is never blocked
    assert manager.tools() == []
    assert manager.status()[0].state == "starting"
    try:
        await manager.wait_ready(30)
        tools = {t.name: t for t in manager.tools()}
        assert {"fake__echo", "fake__add", "fake__crash", "fake__docs"} <= set(tools)
        echo = tools["fake__echo"]
        assert echo.source == "fake" and echo.default_policy == "ask"
        assert echo.kind == "read"  # readOnlyHint
        assert tools["fake__add"].kind == "other"
        assert echo.parameters["required"] == ["text"]
        assert echo.describe({}) == "fake: echo"

        result = await call(manager.tools(), "fake__add", {"a": 2, "b": 40}, tmp_path)
        assert not result.is_error and result.text == "42"
        result = await call(manager.tools(), "fake__echo", {"text": "hi there"}, tmp_path)
        assert result.text == "hi there"
        assert result.content == [acp.Content(content=acp.TextContent(text="hi there"))]
        assert manager.resolve("fake__echo") == ("fake", "echo")
    finally:
        await manager.aclose()


async def test_http_server_with_headers_from_environment(
    http_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRACKER_TOKEN", HTTP_TOKEN)
    spec = {"url": http_url, "headers": {"Authorization": "${TRACKER_TOKEN}"}}
    manager = McpManager({"tracker": spec})
    await manager.start()
    try:
        await manager.wait_ready(30)
        [status] = manager.status()
        assert (status.transport, status.state) == ("http", "ready")
        assert sorted(status.tools) == ["tracker__get_issue", "tracker__multiply"]
        result = await call(manager.tools(), "tracker__get_issue", {"key": "WEB-12"}, tmp_path)
        assert "Login button does nothing" in result.text
        result = await call(manager.tools(), "tracker__multiply", {"a": 6, "b": 7}, tmp_path)
        assert result.text == "42.0"
    finally:
        await manager.aclose()


async def test_http_server_rejecting_our_token_is_reported_failed(http_url: str) -> None:
    logs: list[tuple[str, str]] = []
    manager = McpManager({"tracker": {"url": http_url, "headers": {"Authorization": "wrong"}}}, on_log=_sink(logs))
    await manager.start()
    try:
        statuses = await describe_servers(manager, wait_s=60)
        assert statuses[0].state == "failed"
        assert statuses[0].error
        assert manager.tools() == []
        assert any(level == "warning" and "tracker" in msg for level, msg in logs)
    finally:
        await manager.aclose()


def _sink(logs: list[tuple[str, str]]) -> Callable[[str, str], Awaitable[None]]:
    async def on_log(level: str, message: str) -> None:
        logs.append((level, message))

    return on_log


async def test_crash_mid_call_gives_error_and_server_restarts(tmp_path: Path) -> None:
    logs: list[tuple[str, str]] = []
    manager = McpManager({"fake": stdio_spec(tmp_path / "calls.log")}, on_log=_sink(logs))
    await manager.start()
    try:
        await manager.wait_ready(30)
        first_pid = int((await call(manager.tools(), "fake__whoami", {}, tmp_path)).text)

        tools = manager.tools()
        result = await call(tools, "fake__crash", {}, tmp_path)
        assert result.is_error
        assert "crashed" in result.text and "restarted" in result.text

        # the next call waits for the restart and works
        result = await call(tools, "fake__add", {"a": 1, "b": 1}, tmp_path)
        assert not result.is_error and result.text == "2"
        assert any(level == "warning" and "'fake'" in msg and "restarting" in msg for level, msg in logs)
        second_pid = int((await call(manager.tools(), "fake__whoami", {}, tmp_path)).text)
        assert second_pid != first_pid
        assert not _alive(first_pid)
    finally:
        await manager.aclose()


async def test_tool_handles_survive_a_restart(tmp_path: Path) -> None:
    """A Tool object taken before a crash still works after it (the loop may hold the old list)."""
    manager = McpManager({"fake": stdio_spec(tmp_path / "calls.log")})
    await manager.start()
    try:
        await manager.wait_ready(30)
        tools = manager.tools()
        await call(tools, "fake__crash", {}, tmp_path)
        result = await call(tools, "fake__echo", {"text": "still here"}, tmp_path)
        assert result.text == "still here"
    finally:
        await manager.aclose()


async def test_hanging_call_times_out_with_error_result(tmp_path: Path) -> None:
    manager = McpManager({"fake": stdio_spec(tmp_path / "calls.log")}, call_timeout_s=1.0)
    await manager.start()
    try:
        await manager.wait_ready(30)
        result = await call(manager.tools(), "fake__hang", {}, tmp_path)
        assert result.is_error
        assert "did not answer within 1s" in result.text
        result = await call(manager.tools(), "fake__echo", {"text": "after"}, tmp_path)
        assert result.text == "after"
    finally:
        await manager.aclose()


async def test_schema_violation_is_refused_before_the_call(tmp_path: Path) -> None:
    call_log = tmp_path / "calls.log"
    manager = McpManager({"fake": stdio_spec(call_log)})
    await manager.start()
    try:
        await manager.wait_ready(30)
        result = await call(manager.tools(), "fake__add", {"a": "two", "b": 3}, tmp_path)
        assert result.is_error
        assert "invalid arguments for fake__add" in result.text
        assert "'two' is not of type 'integer'" in result.text
        result = await call(manager.tools(), "fake__add", {"a": 1}, tmp_path)
        assert result.is_error and "'b' is a required property" in result.text
        # the server never saw either call
        assert not call_log.exists() or "add" not in call_log.read_text().split()
        result = await call(manager.tools(), "fake__add", {"a": 1, "b": 2}, tmp_path)
        assert result.text == "3"
        assert call_log.read_text().split() == ["add"]
    finally:
        await manager.aclose()


async def test_tool_errors_and_resource_content_are_converted(tmp_path: Path) -> None:
    manager = McpManager({"fake": stdio_spec(tmp_path / "calls.log")})
    await manager.start()
    try:
        await manager.wait_ready(30)
        failed = await call(manager.tools(), "fake__fail", {}, tmp_path)
        assert failed.is_error and "this tool always fails" in failed.text

        docs = await call(manager.tools(), "fake__docs", {}, tmp_path)
        assert not docs.is_error
        assert "see the guide" in docs.text
        assert "guide.md <file:///guide.md>" in docs.text
        assert "embedded notes" in docs.text
        blocks = [c.content for c in docs.content if isinstance(c, acp.Content)]
        assert isinstance(blocks[1], acp.ResourceLink) and blocks[1].uri == "file:///guide.md"
        assert isinstance(blocks[2], acp.EmbeddedResource)
        assert blocks[2].resource.uri == "file:///notes.txt"
        # ACP wire form is camelCase
        assert docs.content[1].dump()["content"]["mimeType"] == "text/markdown"
    finally:
        await manager.aclose()


async def test_server_stderr_goes_to_the_log_not_our_output(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.INFO, logger="agent_server.tools.mcp")
    manager = McpManager({"fake": stdio_spec(tmp_path / "calls.log")})
    await manager.start()
    try:
        await manager.wait_ready(30)
        await call(manager.tools(), "fake__echo", {"text": "abc"}, tmp_path)
    finally:
        await manager.aclose()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "[fake] fake stdio MCP server starting" in logged
    assert "[fake] echo called with 3 chars" in logged
    out, err = capfd.readouterr()
    assert "echo called" not in out and "echo called" not in err


async def test_aclose_leaves_no_child_processes(tmp_path: Path) -> None:
    manager = McpManager(
        {"one": stdio_spec(tmp_path / "1.log"), "two": stdio_spec(tmp_path / "2.log")}, call_timeout_s=30
    )
    await manager.start()
    await manager.wait_ready(30)
    pids = [int((await call(manager.tools(), f"{n}__whoami", {}, tmp_path)).text) for n in ("one", "two")]
    assert all(_alive(p) for p in pids)
    await manager.aclose()
    assert not any(_alive(p) for p in pids)
    assert {s.state for s in manager.status()} == {"stopped"}
    assert not [p for p in pids if _exists(p)], "a zombie was left behind (not reaped)"


async def test_aclose_while_a_call_hangs(tmp_path: Path) -> None:
    manager = McpManager({"fake": stdio_spec(tmp_path / "calls.log")}, call_timeout_s=60)
    await manager.start()
    await manager.wait_ready(30)
    pid = int((await call(manager.tools(), "fake__whoami", {}, tmp_path)).text)
    pending = asyncio.create_task(call(manager.tools(), "fake__hang", {}, tmp_path))
    await asyncio.sleep(0.3)
    await manager.aclose()
    result = await asyncio.wait_for(pending, 10)
    assert result.is_error
    assert not _alive(pid)


async def test_bad_and_missing_servers_fail_without_blocking_the_others(tmp_path: Path) -> None:
    logs: list[tuple[str, str]] = []
    servers = {
        "nocmd": {"args": ["x"]},
        "ghost": {"command": str(tmp_path / "no-such-binary")},
        "fake": stdio_spec(tmp_path / "calls.log"),
        "off": {**stdio_spec(tmp_path / "x.log"), "disabled": True},
    }
    manager = McpManager(servers, on_log=_sink(logs))
    await manager.start()
    try:
        statuses = {s.name: s for s in await describe_servers(manager, wait_s=30)}
        assert "off" not in statuses
        assert statuses["nocmd"].state == "failed"
        assert "mcp_servers.nocmd" in (statuses["nocmd"].error or "")
        assert statuses["ghost"].state == "failed"
        assert "command not found" in (statuses["ghost"].error or "")
        assert statuses["fake"].state == "ready" and "fake__echo" in statuses["fake"].tools
        assert {t.source for t in manager.tools()} == {"fake"}
        warned = " ".join(m for _, m in logs)
        assert "nocmd" in warned and "ghost" in warned
    finally:
        await manager.aclose()


async def test_acp_servers_convert_to_the_same_config(tmp_path: Path) -> None:
    from agent_server.tools.mcp import servers_from_acp

    spec = stdio_spec(tmp_path / "calls.log")
    acp_servers: list[acp.McpServer] = [
        acp.McpServerStdio(
            name="fake",
            command=spec["command"],
            args=spec["args"],
            env=[acp.EnvVariable(name=k, value=v) for k, v in spec["env"].items()],
        ),
        acp.McpServerHttp(
            type="http", name="web", url="http://127.0.0.1:1/mcp", headers=[acp.HttpHeader(name="X-A", value="b")]
        ),
    ]
    converted = servers_from_acp(acp_servers)
    assert converted["fake"] == {"command": spec["command"], "args": spec["args"], "env": spec["env"]}
    assert converted["web"] == {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"X-A": "b"}}
    manager = McpManager({"fake": converted["fake"]})
    await manager.start()
    try:
        await manager.wait_ready(30)
        assert "fake__echo" in {t.name for t in manager.tools()}
    finally:
        await manager.aclose()


async def test_tool_list_changes_are_picked_up(tmp_path: Path) -> None:
    manager = McpManager({"fake": stdio_spec(tmp_path / "calls.log")})
    await manager.start()
    try:
        await manager.wait_ready(30)
        assert "fake__sprout" not in {t.name for t in manager.tools()}
        await call(manager.tools(), "fake__grow", {"name": "sprout"}, tmp_path)
        for _ in range(200):
            if "fake__sprout" in {t.name for t in manager.tools()}:
                break
            await asyncio.sleep(0.05)
        result = await call(manager.tools(), "fake__sprout", {}, tmp_path)
        assert result.text == "I am sprout"
    finally:
        await manager.aclose()


async def test_cancelled_call_leaves_the_server_usable(tmp_path: Path) -> None:
    manager = McpManager({"fake": stdio_spec(tmp_path / "calls.log")})
    await manager.start()
    try:
        await manager.wait_ready(30)
        pending = asyncio.create_task(call(manager.tools(), "fake__hang", {}, tmp_path))
        await asyncio.sleep(0.3)
        pending.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pending
        result = await call(manager.tools(), "fake__echo", {"text": "ok"}, tmp_path)
        assert result.text == "ok"
        assert manager.status()[0].state == "ready"
    finally:
        await manager.aclose()
