"""web_fetch through the real server: the address judged is the address connected to.

Every other spelling of this machine's address (integers, hex, `0`, IPv4-mapped IPv6, ideographic and full-width
dots, `localhost.`, the machine's own host name) is refused by default without a question, and caught by a deny
rule for 127.0.0.1; a rule that names 127.0.0.1 still lets tests and users fetch from loopback, in any spelling."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.fetch_site import Site, tool_results
from tests.e2e.helpers import answer_permissions, prompt
from tests.fakes.fake_llm import FakeLLMServer, Reply


def own_address() -> str:
    """The address this machine's host name resolves to (a site listens there too), skipped when it is public."""
    address = socket.gethostbyname(socket.gethostname())
    if ipaddress.ip_address(address).is_global:
        pytest.skip("this machine's host name resolves to a public address")
    return address


def redirect_to(location: str) -> Any:
    def route(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(302)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return route


@pytest.fixture
def sites() -> Iterator[tuple[Site, Site | None]]:
    """A site on 127.0.0.1 and, when the host name resolves elsewhere, one on that address with the same port."""
    local = Site({})
    address = own_address()
    other = None
    if address != "127.0.0.1":
        other = Site({}, host=address)
    yield local, other
    for site in (local, other):
        if site is not None:
            site.close()


def spellings(site: Site) -> list[str]:
    port = site.port
    return [
        f"http://2130706433:{port}/doc",
        f"http://0x7f000001:{port}/doc",
        f"http://0:{port}/doc",
        f"http://[::ffff:127.0.0.1]:{port}/doc",
        f"http://127\u30020\u30020\u30021:{port}/doc",  # ideographic full stops
        f"http://127\uff0e0\uff0e0\uff0e1:{port}/doc",  # full-width full stops
        f"http://localhost.:{port}/doc",
        f"http://LOCALHOST:{port}/doc",
    ]


def rules(*items: tuple[str, str]) -> list[dict[str, str]]:
    return [{"tool": "web_fetch", "pattern": pattern, "policy": policy} for pattern, policy in items]


async def fetch_all(
    start_server: Start, workspace: Path, fake: FakeLLMServer, tools: dict[str, Any], urls: list[str]
) -> tuple[list[dict[str, Any]], list[str]]:
    """One turn of web_fetch calls (every question answered "allow once"): (questions asked, results)."""
    server = await start_server(workspace, {**llm_options(fake), "tools": tools})
    asked = answer_permissions(server, "allow_once")
    sid = await new_session(server, workspace)
    fake.script(*[Reply.tool_call("web_fetch", {"url": u}) for u in urls], Reply.text("done"))
    assert await prompt(server, sid, "read the local pages") == "end_turn"
    results = tool_results(fake)
    assert len(results) == len(urls)
    return asked, results


async def test_other_spellings_of_this_machine_are_refused_without_a_question(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, sites: tuple[Site, Site | None]
) -> None:
    local, other = sites
    urls = [*spellings(local), f"http://{socket.gethostname()}:{(other or local).port}/doc"]
    asked, results = await fetch_all(start_server, workspace, fake_llm, {}, urls)
    assert local.hits == [] and (other is None or other.hits == []), "a protected page was fetched"
    assert asked == [], "refused by default: the user is not asked to approve a fetch from this machine"
    for url, text in zip(urls, results, strict=True):
        assert "this machine" in text and "PROTECTED-TEXT" not in text, (url, text)
        assert 'pattern = "' in text, "the refusal says which rule would allow it"


async def test_a_deny_rule_for_loopback_catches_every_spelling(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, sites: tuple[Site, Site | None]
) -> None:
    local, other = sites
    urls = [*spellings(local), f"http://{socket.gethostname()}:{(other or local).port}/doc"]
    # Every fetch allowed, loopback denied: the deny rule must see through each spelling.
    tools = {"policy": {"web_fetch": "allow"}, "rules": rules(("127.0.0.1", "deny"), (own_address(), "deny"))}
    asked, results = await fetch_all(start_server, workspace, fake_llm, tools, urls)
    assert local.hits == [] and (other is None or other.hits == []), "a protected page was fetched"
    assert asked == []
    for url, text in zip(urls, results, strict=True):
        if "//0:" in url:
            assert "unspecified address (this machine)" in text, text  # 0.0.0.0: refused as this machine's
        else:
            assert "deny" in text.lower() and "PROTECTED-TEXT" not in text, (url, text)


async def test_a_rule_naming_loopback_allows_it_in_any_spelling_and_a_wildcard_does_not(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    routes: dict[str, Any] = {}
    site = Site(routes)
    routes["/hop"] = redirect_to(f"http://2130706433:{site.port}/doc")
    try:
        urls = [site.url("/doc"), f"http://0x7f000001:{site.port}/doc", site.url("/hop"), site.url("/doc", "localhost")]
        asked, results = await fetch_all(
            start_server, workspace, fake_llm, {"rules": rules(("127.0.0.1", "allow"), ("localhost", "allow"))}, urls
        )
        assert asked == []
        assert all("PROTECTED-TEXT" in text for text in results), results
        assert "redirected from" in results[2], "a redirect to the same host in another spelling is followed"
        assert site.hits == ["/doc", "/doc", "/hop", "/doc", "/doc"]

        # A rule that matches every host does not name this machine: still refused.
        asked, results = await fetch_all(
            start_server, workspace, fake_llm, {"rules": rules(("*", "allow"))}, [site.url("/doc")]
        )
        assert "this machine" in results[0] and site.hits == ["/doc", "/doc", "/hop", "/doc", "/doc"]
    finally:
        site.close()
