"""web_fetch through the real server against a real HTTP server on 127.0.0.1: asked before any byte leaves, allowed by
host rules, HTML to markdown, paged, limited in size and time, redirects judged again, clear errors when offline."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import answer_permissions, prompt, sent_messages
from tests.fakes.fake_llm import FakeLLMServer, Reply

DOC = """<!doctype html><html><head><title>Widget guide</title><style>body{color:red}</style>
<script>var secret = "SCRIPT-TEXT";</script></head><body>
<nav><a href="/">Home</a></nav>
<h1>Widget guide</h1><p>Widgets are <b>configured</b> with <a href="/conf">a file</a>.</p>
<h2>Install</h2><ul><li>pip install widget</li><li>widget init</li></ul>
<pre><code>widget run --fast</code></pre>
</body></html>"""
LONG = "<html><body>" + "".join(f"<p>Paragraph {i} of the long page.</p>" for i in range(600)) + "</body></html>"


class Site:
    def __init__(self) -> None:
        self.hits: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                site.hits.append(self.path)
                if self.path == "/slow":
                    time.sleep(3)
                if self.path == "/away":
                    self.send_response(302)
                    self.send_header("Location", f"http://localhost:{site.port}/doc")
                    self.end_headers()
                    return
                if self.path == "/moved":
                    self.send_response(301)
                    self.send_header("Location", "/doc")
                    self.end_headers()
                    return
                if self.path == "/image":
                    body, kind = b"\x89PNG\r\n\x1a\n" + bytes(200), "image/png"
                elif self.path == "/missing":
                    self.send_response(404)
                    self.end_headers()
                    return
                else:
                    body, kind = (LONG if self.path in ("/long", "/slow") else DOC).encode(), "text/html; charset=utf-8"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def site() -> Iterator[Site]:
    s = Site()
    yield s
    s.server.shutdown()
    s.server.server_close()


def allow_host(fake: FakeLLMServer, pattern: str, *more: str, policy: str = "allow", **tools: Any) -> dict[str, Any]:
    options = llm_options(fake)
    rules = [{"tool": "web_fetch", "pattern": p, "policy": policy} for p in (pattern, *more)]
    options["tools"] = {"rules": rules, **tools}
    return options


def ask_loopback(fake: FakeLLMServer) -> dict[str, Any]:
    """A rule that names 127.0.0.1 and still asks: loopback is fetched only when a rule names it."""
    return allow_host(fake, "127.0.0.1", policy="ask")


def results(fake: FakeLLMServer, index: int) -> list[str]:
    return [m["content"] for m in sent_messages(fake, index) if m["role"] == "tool"]


async def test_asks_before_any_request_and_sends_markdown_to_the_model(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, site: Site
) -> None:
    server = await start_server(workspace, ask_loopback(fake_llm))
    asked = answer_permissions(server, "reject_once", "allow_once")
    sid = await new_session(server, workspace)
    fake_llm.script(
        Reply.tool_call("web_fetch", {"url": site.url("/doc?q=leak")}),
        Reply.tool_call("web_fetch", {"url": site.url("/doc")}),
        Reply.text("done"),
    )
    assert await prompt(server, sid, "read the guide") == "end_turn"
    assert len(asked) == 2 and asked[0]["toolCall"]["title"] == "Fetch 127.0.0.1"
    shown = asked[0]["toolCall"]["content"][0]["content"]["text"]
    assert f"GET {site.url('/doc?q=leak')}" in shown, "the approval shows the whole URL, query string included"
    assert site.hits == ["/doc"], "the rejected URL never left the machine"
    rejected, page = results(fake_llm, 2)
    assert "declined" in rejected
    assert "# Widget guide" in page and "## Install" in page and "- pip install widget" in page
    assert "[a file](/conf)" in page and "**configured**" in page and "widget run --fast" in page
    assert "SCRIPT-TEXT" not in page and "color:red" not in page


async def test_host_rules_and_always_allow(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, site: Site
) -> None:
    options = allow_host(fake_llm, "*.python.org")
    options["tools"]["rules"].append({"tool": "web_fetch", "pattern": "127.0.0.1", "policy": "ask"})
    server = await start_server(workspace, options)
    asked = answer_permissions(server, "allow_always")
    sid = await new_session(server, workspace)
    fake_llm.script(
        Reply.tool_call("web_fetch", {"url": site.url("/doc")}),
        Reply.tool_call("web_fetch", {"url": site.url("/other")}),
        Reply.text("done"),
    )
    assert await prompt(server, sid, "read") == "end_turn"
    assert len(asked) == 1, "a rule for another host does not cover 127.0.0.1; 'always' then covers the host"
    assert site.hits == ["/doc", "/other"]

    allowed = await start_server(workspace, allow_host(fake_llm, "127.0.0.1"))
    none_asked = answer_permissions(allowed, "reject_once")
    sid = await new_session(allowed, workspace)
    fake_llm.script(Reply.tool_call("web_fetch", {"url": site.url("/doc")}), Reply.text("done"))
    assert await prompt(allowed, sid, "read") == "end_turn"
    assert none_asked == [] and "# Widget guide" in results(fake_llm, 4)[0]


async def test_a_long_page_is_paged_to_the_window_and_fetched_once(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, site: Site
) -> None:
    fake_llm.models[0].context_length = 4096
    server = await start_server(workspace, allow_host(fake_llm, "127.0.0.1"))
    sid = await new_session(server, workspace)
    fake_llm.script(
        Reply.tool_call("web_fetch", {"url": site.url("/long")}),
        Reply.tool_call("web_fetch", {"url": site.url("/long"), "start_line": 41}),
        Reply.text("done"),
    )
    assert await prompt(server, sid, "read") == "end_turn"
    first = results(fake_llm, 1)[0]
    assert "Paragraph 0 of" in first and "Paragraph 599" not in first
    assert "call web_fetch with the same url and start_line=" in first and len(first) < 4096 * 3.5 / 2
    second = results(fake_llm, 2)[1]
    assert "(markdown, lines 41-" in second and "Paragraph 20 of" in second
    assert site.hits == ["/long"], "the next page comes from the session's copy"


async def test_limits_redirects_and_errors_are_clear(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, site: Site
) -> None:
    options = allow_host(fake_llm, "127.0.0.1", fetchTimeoutS=0.5, fetchMaxBytes=2000)
    server = await start_server(workspace, options)
    sid = await new_session(server, workspace)
    fake_llm.script(
        Reply.tool_call("web_fetch", {"url": site.url("/long")}),
        Reply.tool_call("web_fetch", {"url": site.url("/slow")}),
        Reply.tool_call("web_fetch", {"url": site.url("/away")}),
        Reply.tool_call("web_fetch", {"url": site.url("/moved")}),
        Reply.tool_call("web_fetch", {"url": site.url("/image")}),
        Reply.tool_call("web_fetch", {"url": site.url("/missing")}),
        Reply.tool_call("web_fetch", {"url": "http://127.0.0.1:9/offline"}),
        Reply.tool_call("web_fetch", {"url": "file:///etc/passwd"}),
        Reply.text("done"),
    )
    assert await prompt(server, sid, "read") == "end_turn"
    out = results(fake_llm, 8)
    assert "[page cut at 2000 bytes (tools.fetch_max_bytes)]" in out[0] and "Paragraph 599" not in out[0]
    assert "did not answer within 0.5 s" in out[1]
    assert "redirects to another host: http://localhost:" in out[2] and "/doc" not in site.hits[:3]
    assert "# Widget guide" in out[3] and "redirected from" in out[3], "a redirect on the same host is followed"
    assert "not a text page (content-type image/png)" in out[4]
    assert "HTTP 404" in out[5]
    assert "could not connect to 127.0.0.1" in out[6] and "offline" in out[6]
    assert "not an http(s) URL" in out[7]
