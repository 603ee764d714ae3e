"""web_fetch: one web page as markdown for the model, paged like read_file.

A URL can carry data out (the model may put what it read into a query string), so the tool asks by default; an
allow rule or an "always allow" answer names a host (`[[tools.rules]] tool = "web_fetch" pattern = "docs.python.org"`,
globs like `*.python.org`), see tools/permissions.py. The host is judged in one canonical spelling, resolved once,
and the request goes to an address that was judged (tools/fetch_address.py): addresses of this machine and its
networks only when a rule names them. Redirects are followed only on the same host, to the addresses already
judged: a redirect elsewhere is reported, and fetching the new URL is a call of its own that the policy judges
again. Proxies from the environment are not used (a proxy would look the name up itself, after the judgement).
`tools.fetch_timeout_s` is a deadline for the whole download; the body is decoded within `tools.fetch_max_bytes`
(tools/fetch_body.py); HTML becomes markdown in a child process (tools/html_to_markdown.py). The converted page is
kept for the session's next pages so `start_line` does not fetch it again.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from pydantic import Field

from .. import acp
from ..config import ToolsConfig
from ..errors import ToolError
from .base import LeanForm, ToolContext, ToolResult
from .definition import BuiltinTool, ToolArgs, short
from .fetch_address import Address, Target, judge, parse, resolve
from .fetch_address import host_of as host_of
from .fetch_body import ACCEPT_ENCODING, BoundedBody, coding_of
from .html_to_markdown import convert
from .preview import Preview

if TYPE_CHECKING:
    import httpx

MAX_REDIRECTS = 5
CACHED_PAGES = 16
HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("text/plain", "text/markdown", "application/json", "text/csv", "application/xml", "text/xml")
USER_AGENT = "agent-server web_fetch (+https://github.com/agent-server)"

_pages: OrderedDict[tuple[str, str], str] = OrderedDict()  # (session, url) -> markdown, for the next pages


async def judged(target: Target, cfg: ToolsConfig) -> list[Address]:
    """The addresses of `target` that may be connected to: resolved once, every one judged."""
    return judge(target, await resolve(target), cfg.rules)


@dataclass
class Page:
    url: str
    text: str
    cut: bool
    html: bool


async def _connect(client: httpx.AsyncClient, target: Target, addresses: list[Address]) -> httpx.Response:
    """The response of the first judged address that accepts the connection (the name is never looked up again:
    the request names the address; Host and TLS keep the name)."""
    import httpx

    failure: httpx.ConnectError | None = None
    for address in addresses:
        headers = {"Host": target.host_header, "User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING}
        extensions = {"sni_hostname": target.sni} if target.sni else {}
        request = client.build_request("GET", target.pinned(address), headers=headers, extensions=extensions)
        try:
            return await client.send(request, stream=True)
        except httpx.ConnectError as exc:
            failure = exc
    assert failure is not None
    raise failure


async def _read(url: str, response: httpx.Response, cfg: ToolsConfig) -> Page:
    if response.status_code >= 400:
        raise ToolError(f"{url} answered HTTP {response.status_code} {response.reason_phrase}")
    kind = response.headers.get("content-type", "text/html").split(";")[0].strip().lower()
    if kind not in HTML_TYPES and not kind.startswith(TEXT_TYPES):
        raise ToolError(f"{url} is not a text page (content-type {kind}); web_fetch reads text only")
    body = BoundedBody(coding_of(response.headers.get_list("content-encoding")), cfg.fetch_max_bytes)
    cut = False
    async for chunk in response.aiter_raw():
        if body.feed(chunk):
            cut = True
            break
    text = bytes(body.data).decode(response.encoding or "utf-8", errors="replace")
    return Page(url, text, cut, kind in HTML_TYPES)


async def _download(url: str, cfg: ToolsConfig) -> Page:
    """The page at `url` (redirects on the same host followed), all of it within `cfg.fetch_timeout_s`."""
    import httpx  # on first use: httpx pulls in its CLI's imports, too many for the server's start

    target = parse(url)
    timeout = httpx.Timeout(cfg.fetch_timeout_s, connect=min(10.0, cfg.fetch_timeout_s))
    async with asyncio.timeout(cfg.fetch_timeout_s):
        addresses = await judged(target, cfg)
        # trust_env off: a proxy from the environment would look the name up again, after the judgement.
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False) as client:
            for _hop in range(MAX_REDIRECTS + 1):
                response = await _connect(client, target, addresses)
                try:
                    if not response.is_redirect:
                        return await _read(url, response, cfg)
                finally:
                    await response.aclose()
                location = urljoin(url, response.headers.get("location", ""))
                following = parse(location)
                if following.name != target.name:
                    raise ToolError(
                        f"{url} redirects to another host: {location}. Call web_fetch with that URL if you "
                        "need it (it is judged, and asked about, on its own)."
                    )
                url, target = location, following  # the same host: the addresses already judged
    raise ToolError(f"{url} redirected more than {MAX_REDIRECTS} times")


async def _fetch(url: str, cfg: ToolsConfig) -> Page:
    """`_download` with its failures as errors the model can act on, and HTML converted to markdown."""
    import httpx

    host = host_of(url)
    try:
        page = await _download(url, cfg)
    except TimeoutError:
        raise ToolError(
            f"{url} did not answer within {cfg.fetch_timeout_s:g} s (tools.fetch_timeout_s, the limit for the "
            "whole page)"
        ) from None
    except httpx.TimeoutException:
        raise ToolError(f"{url} did not answer within {cfg.fetch_timeout_s:g} s (tools.fetch_timeout_s)") from None
    except httpx.ConnectError as exc:
        raise ToolError(
            f"could not connect to {host} ({exc or 'connection failed'}): the host is down, the name does "
            "not resolve, or this machine is offline"
        ) from None
    except httpx.HTTPError as exc:
        raise ToolError(f"fetching {url} failed: {exc}") from None
    if page.html:
        title, text = await convert(page.text, cfg.fetch_timeout_s)
        page.text = f"# {title}\n\n{text}" if title and not text.startswith("# ") else text
    return page


def _page(url: str, text: str, start: int, budget: int | None, note: str) -> str:
    lines = text.splitlines() or [""]
    total = len(lines)
    if start > total:
        raise ToolError(f"start_line {start} is past the end of the page, which has {total} lines")
    header = f"{url} (markdown, lines {start}-{{last}} of {total}{note})\n"
    room = (budget or 1_000_000) - len(header) - 160
    shown: list[str] = []
    for line in lines[start - 1 :]:
        room -= len(line) + 1
        if room < 0 and shown:
            break
        shown.append(line)
    last = start + len(shown) - 1
    body = header.format(last=last) + "\n".join(shown)
    if last < total:
        body += (
            f"\n[page: lines {start}-{last} of {total} shown, to fit the model's context window; "
            f"call web_fetch with the same url and start_line={last + 1} for more]"
        )
    return body


class WebFetchArgs(ToolArgs):
    url: str
    """The full URL, e.g. 'https://docs.python.org/3/'."""
    start_line: int | None = Field(default=None, ge=1)
    """First line of the page to show (1-based)."""


class WebFetch(BuiltinTool[WebFetchArgs]):
    name = "web_fetch"
    description = (
        "Read a web page (http/https) as markdown. Long pages come in pages: pass start_line for the next. "
        "Asks the user first unless the host is allowed."
    )
    args = WebFetchArgs
    kind = "fetch"
    policy = "ask"
    lean = LeanForm(only_if_named=True)  # a fetched page would fill a small window

    def title(self, args: dict[str, Any]) -> str:
        url = str(args.get("url", ""))
        return f"Fetch {host_of(url) or short(url)}"

    async def preview(self, ctx: ToolContext, args: WebFetchArgs) -> Preview:
        """The whole URL (its query string is what could carry data out) and the host an "always allow" would
        cover. Raises ToolError for a URL the tool would refuse anyway, before anyone is asked: not http(s), a name
        that does not resolve, an address a deny rule names or no rule allows."""
        url = args.url.strip()
        target = parse(url)
        try:
            async with asyncio.timeout(self.config.fetch_timeout_s):
                await judged(target, self.config)
        except TimeoutError:
            raise ToolError(f"{target.name} did not resolve within {self.config.fetch_timeout_s:g} s") from None
        shown = f'GET {url}\n\n"Always allow" allows every URL on {target.name}.'
        return Preview(content=[acp.Content(content=acp.TextContent(text=shown))])

    async def run(self, ctx: ToolContext, args: WebFetchArgs) -> ToolResult:
        url = args.url.strip()
        parse(url)  # a clear error for anything that is not a valid http(s) URL
        start = args.start_line or 1
        key = (ctx.session_id, url)
        note = ""
        if key in _pages and start > 1:
            text = _pages[key]
            _pages.move_to_end(key)
        else:
            page = await _fetch(url, self.config)
            text = page.text
            if page.cut:
                text += f"\n\n[page cut at {self.config.fetch_max_bytes} bytes (tools.fetch_max_bytes)]"
            if page.url != url:
                note = f", redirected from {url}"
            _pages[key] = text
            while len(_pages) > CACHED_PAGES:
                _pages.popitem(last=False)
            url = page.url
        return ToolResult(text=_page(url, text, start, ctx.page_chars, note))
