"""web_fetch's limits through the real server: a deadline for the whole page, compressed bodies decoded within the
size limit, HTML converted off the event loop within a deadline, and limits a workspace cannot raise untrusted."""

from __future__ import annotations

import asyncio
import gzip
import time
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from agent_server import trust
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.fetch_site import Site, peak_memory_mb, send, tool_results
from tests.e2e.helpers import answer_permissions, install_apply_edit, prompt
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient

BOMB_MB = 256
BR_PAGE = b"<html><head><title>Breaks</title></head><body>" + b"<br>" * 500_000 + b"</body></html>"


def gzip_of_zeros(megabytes: int) -> bytes:
    """A gzip stream of `megabytes` MB of zeros (about a thousandth of that on the wire)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    return b"".join(packer.compress(block) for _ in range(megabytes)) + packer.flush()


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return gzip_of_zeros(BOMB_MB)


def trickle(handler: BaseHTTPRequestHandler) -> None:
    """A page that never ends: one byte every 0.1 s (reaching a 1000-byte cap would take 100 s)."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Content-Length", "1000000")
    handler.end_headers()
    while True:
        handler.wfile.write(b"x")
        handler.wfile.flush()
        time.sleep(0.1)


@pytest.fixture
def site(bomb: bytes) -> Iterator[Site]:
    routes: dict[str, Any] = {
        "/trickle": trickle,
        "/gzip-twice": lambda h: send(h, gzip.compress(bomb), "text/plain", Content_Encoding="gzip, gzip"),
        "/gzip": lambda h: send(h, bomb, "text/plain", Content_Encoding="gzip"),
        "/breaks": lambda h: send(h, BR_PAGE),
        "/long": lambda h: send(h, b"<html><body>" + b"<p>Paragraph of the long page.</p>" * 600 + b"</body></html>"),
    }
    s = Site(routes)
    yield s
    s.close()


def options(fake: FakeLLMServer, **tools: Any) -> dict[str, Any]:
    rules = [{"tool": "web_fetch", "pattern": "127.0.0.1", "policy": "allow"}]
    return {**llm_options(fake), "tools": {"rules": rules, **tools}}


async def test_a_page_that_trickles_ends_at_the_deadline(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, site: Site
) -> None:
    server = await start_server(workspace, options(fake_llm, fetchTimeoutS=2, fetchMaxBytes=1000))
    sid = await new_session(server, workspace)
    fake_llm.script(Reply.tool_call("web_fetch", {"url": site.url("/trickle")}), Reply.text("done"))
    # Generous: the deadline is 2 s; before, each byte restarted the read timeout and the page ran for 100 s.
    assert await asyncio.wait_for(prompt(server, sid, "read"), 40) == "end_turn"
    assert "did not answer within 2 s" in tool_results(fake_llm)[0]


async def test_compressed_bodies_stay_within_the_size_limit(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, site: Site
) -> None:
    server = await start_server(workspace, options(fake_llm, fetchMaxBytes=100_000))
    sid = await new_session(server, workspace)
    before = peak_memory_mb(server.proc.pid)
    fake_llm.script(
        Reply.tool_call("web_fetch", {"url": site.url("/gzip-twice")}),
        Reply.tool_call("web_fetch", {"url": site.url("/gzip")}),
        Reply.tool_call("web_fetch", {"url": site.url("/gzip"), "start_line": 3}),  # after the 100 kB of zeros
        Reply.text("done"),
    )
    assert await prompt(server, sid, "read") == "end_turn"
    twice, once, end = tool_results(fake_llm)
    assert "encoded more than once (Content-Encoding: gzip, gzip)" in twice, twice
    assert "lines 1-1 of 3" in once and "[page cut at 100000 bytes (tools.fetch_max_bytes)]" in end, end
    grown = peak_memory_mb(server.proc.pid) - before
    assert grown < BOMB_MB / 4, f"the server grew by {grown:.0f} MB inflating {BOMB_MB} MB bombs"


async def test_a_page_slow_to_convert_does_not_stop_the_server(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, site: Site
) -> None:
    server = await start_server(workspace, options(fake_llm, fetchTimeoutS=3))
    sid = await new_session(server, workspace)
    before = peak_memory_mb(server.proc.pid)
    fake_llm.script(Reply.tool_call("web_fetch", {"url": site.url("/breaks")}), Reply.text("done"))
    turn = asyncio.ensure_future(prompt(server, sid, "read"))
    await server.wait_for(lambda: site.hits == ["/breaks"], timeout=30)
    await asyncio.sleep(1.0)  # the 2 MB page is in; its conversion (tens of seconds in-process) is under way
    started = time.monotonic()
    await server.request("agent/_permissions/list", {"cwd": str(workspace)}, timeout=10)
    assert time.monotonic() - started < 1.0, "the server stopped answering while a page was converted"
    assert await asyncio.wait_for(turn, 60) == "end_turn"
    result = tool_results(fake_llm)[0]
    assert "converting the page to markdown took longer than 5 s" in result, result[:300]
    grown = peak_memory_mb(server.proc.pid) - before
    assert grown < 150, f"the server grew by {grown:.0f} MB converting a 2 MB page"


# --- limits under trust ----------------------------------------------------------------------------------------


async def start_untrusted(root: Path, tmp_path: Path, opts: dict[str, Any]) -> LspClient:
    """A server whose trust question is answered "Not now" (the workspace stays untrusted)."""
    client = await LspClient.start(env={"AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db")}, cwd=tmp_path)
    client.handlers["window/showMessageRequest"] = lambda params: {"title": trust.NOT_NOW}
    await client.initialize(root, opts)
    return client


def notices(client: LspClient) -> list[str]:
    return [p["message"] for _, m, p in client.notifications if m == "window/showMessage"]


async def test_an_untrusted_workspace_cannot_raise_fetch_limits_or_set_lint_commands(
    workspace: Path, fake_llm: FakeLLMServer, site: Site, tmp_path: Path
) -> None:
    (workspace / ".agent-server.toml").write_text(
        "[tools]\nfetch_max_bytes = 100000000\nfetch_timeout_s = 600\n\n"
        '[tools.lint]\npython = "touch linted-by-the-workspace"\n'
    )
    client = await start_untrusted(workspace, tmp_path, options(fake_llm, fetchMaxBytes=2000))
    try:
        await client.wait_for(lambda: any("Ignored until you trust" in m for m in notices(client)))
        notice = next(m for m in notices(client) if "Ignored until you trust" in m)
        for key in ("tools.fetch_max_bytes", "tools.fetch_timeout_s", "tools.lint.python"):
            assert key in notice, notice
        asked = answer_permissions(client, "allow_once")
        install_apply_edit(client)
        sid = await new_session(client, workspace)
        fake_llm.script(
            Reply.tool_call("web_fetch", {"url": site.url("/long")}),
            Reply.tool_call("write_file", {"path": "calc.py", "content": "x = 1\n"}),
            Reply.text("done"),
        )
        assert await prompt(client, sid, "read and write") == "end_turn"
        page, _written = tool_results(fake_llm)
        assert "[page cut at 2000 bytes (tools.fetch_max_bytes)]" in page, "the user's limit holds"
        assert (workspace / "calc.py").exists()
        assert not (workspace / "linted-by-the-workspace").exists(), "the workspace's lint command ran"
        assert all("linted" not in str(a) for a in asked), "the workspace's lint command was offered to run"
    finally:
        await client.close()
