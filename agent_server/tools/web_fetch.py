"""web_fetch: one web page as markdown for the model, paged like read_file.

A URL can carry data out (the model may put what it read into a query string), so the tool asks by default; an
allow rule or an "always allow" answer names a host (`[[tools.rules]] tool = "web_fetch" pattern = "docs.python.org"`,
globs like `*.python.org`), see tools/permissions.py. Redirects are followed only on the same host: a redirect
elsewhere is reported, and fetching the new URL is a call of its own that the policy judges again. The page is
read up to `tools.fetch_max_bytes` within `tools.fetch_timeout_s`; HTML becomes markdown through markdownify
(scripts, styles and other non-content elements dropped first); the converted page is kept for the session's
next pages so `start_line` does not fetch it again.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..config import ToolsConfig
from ..errors import ToolError
from .base import ToolContext, ToolResult

MAX_REDIRECTS = 5
CACHED_PAGES = 16
DROP = ["script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed", "form", "head"]
TEXT_TYPES = ("text/plain", "text/markdown", "application/json", "text/csv", "application/xml", "text/xml")
USER_AGENT = "agent-server web_fetch (+https://github.com/agent-server)"
_BLANKS = re.compile(r"\n{3,}")

_pages: OrderedDict[tuple[str, str], str] = OrderedDict()  # (session, url) -> markdown, for the next pages


def host_of(url: str) -> str:
    """What allow rules match: the host name, lowercased, without port ("" for anything that is not http(s))."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if parts.scheme not in ("http", "https"):
        return ""
    return (parts.hostname or "").lower()


def fetch_preview(args: dict[str, Any]) -> str:
    """What the approval shows: the whole URL (its query string is what could carry data out) and the host an
    "always allow" would cover. Raises ToolError for a URL the tool would refuse anyway, before anyone is asked."""
    url = str(args.get("url", "")).strip()
    host = host_of(url)
    if not host:
        raise ToolError(f"not an http(s) URL: {url[:200]!r}")
    return f'GET {url}\n\n"Always allow" allows every URL on {host}.'


def to_markdown(html: str) -> tuple[str, str]:
    """(title, markdown) of an HTML page."""
    from bs4 import BeautifulSoup  # loaded on the first fetch, not at every server start
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(strip=True) if soup.title else ""
    for tag in soup(DROP):
        tag.decompose()
    text = MarkdownConverter(heading_style="ATX", bullets="-", strip=["img"]).convert_soup(soup)
    text = "\n".join(line.rstrip() for line in text.splitlines())
    return title, _BLANKS.sub("\n\n", text).strip()


async def _download(url: str, cfg: ToolsConfig) -> tuple[str, str, bool]:
    """(final URL, decoded text, cut) of a text page; ToolError with a clear reason otherwise."""
    import httpx  # on first use: httpx pulls in its CLI's imports, too many for the server's start

    timeout = httpx.Timeout(cfg.fetch_timeout_s, connect=min(10.0, cfg.fetch_timeout_s))
    host = host_of(url)
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False) as client:
        for _hop in range(MAX_REDIRECTS + 1):
            try:
                async with client.stream("GET", url, headers={"User-Agent": USER_AGENT}) as response:
                    if response.is_redirect:
                        target = urljoin(url, response.headers.get("location", ""))
                        if host_of(target) != host:
                            raise ToolError(
                                f"{url} redirects to another host: {target}. Call web_fetch with that URL if you "
                                "need it (it is judged, and asked about, on its own)."
                            )
                        url = target
                        continue
                    if response.status_code >= 400:
                        raise ToolError(f"{url} answered HTTP {response.status_code} {response.reason_phrase}")
                    kind = response.headers.get("content-type", "text/html").split(";")[0].strip().lower()
                    if kind not in ("text/html", "application/xhtml+xml") and not kind.startswith(TEXT_TYPES):
                        raise ToolError(f"{url} is not a text page (content-type {kind}); web_fetch reads text only")
                    data = bytearray()
                    cut = False
                    async for chunk in response.aiter_bytes():
                        data += chunk
                        if len(data) > cfg.fetch_max_bytes:
                            del data[cfg.fetch_max_bytes :]
                            cut = True
                            break
                    text = bytes(data).decode(response.encoding or "utf-8", errors="replace")
                    if kind in ("text/html", "application/xhtml+xml"):
                        title, text = to_markdown(text)
                        text = f"# {title}\n\n{text}" if title and not text.startswith("# ") else text
                    return url, text, cut
            except httpx.TimeoutException:
                raise ToolError(
                    f"{url} did not answer within {cfg.fetch_timeout_s:g} s (tools.fetch_timeout_s)"
                ) from None
            except httpx.ConnectError as exc:
                raise ToolError(
                    f"could not connect to {host} ({exc or 'connection failed'}): the host is down, the name does "
                    "not resolve, or this machine is offline"
                ) from None
            except httpx.HTTPError as exc:
                raise ToolError(f"fetching {url} failed: {exc}") from None
    raise ToolError(f"{url} redirected more than {MAX_REDIRECTS} times")


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


def make_handler(cfg: ToolsConfig) -> Any:
    async def web_fetch(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        url = str(args["url"]).strip()
        if not host_of(url):
            raise ToolError(f"not an http(s) URL: {url[:200]!r}")
        start = int(args.get("start_line") or 1)
        key = (ctx.session_id, url)
        note = ""
        if key in _pages and start > 1:
            text = _pages[key]
            _pages.move_to_end(key)
        else:
            final, text, cut = await _download(url, cfg)
            if cut:
                text += f"\n\n[page cut at {cfg.fetch_max_bytes} bytes (tools.fetch_max_bytes)]"
            if final != url:
                note = f", redirected from {url}"
            _pages[key] = text
            while len(_pages) > CACHED_PAGES:
                _pages.popitem(last=False)
            url = final
        return ToolResult(text=_page(url, text, start, ctx.page_chars, note))

    return web_fetch
