"""Where a web_fetch goes: one spelling of the host, resolved once, judged on its name and every address.

The permission policy matches rules against a host *name*, but the connection goes to an *address*, and many names
reach the same one: `2130706433`, `0x7f000001`, `127.1`, `0`, `[::ffff:127.0.0.1]`, `127。0。0。1` (ideographic
dots), `localhost.`, the machine's own host name. So the URL is parsed once (by httpx, the parser of the request
that is sent), its host brought to one canonical form (IDNA, lowercase, no trailing dot, an IPv4 address in any
legacy spelling as a dotted quad, an IPv4-mapped IPv6 address as IPv4) that the policy judges, then resolved once;
every address is checked against the deny rules, and an address of this machine or its networks (loopback,
private, link-local, shared, reserved, multicast, unspecified; also when embedded in an IPv6 address) is refused
unless a rule names it. The request then goes to a judged address itself: no second lookup can answer differently.
"""

from __future__ import annotations

import asyncio
import fnmatch
import ipaddress
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..config import ToolRule
from ..errors import ToolError

if TYPE_CHECKING:
    import httpx

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

TOOL = "web_fetch"
# The legacy IPv4 spellings `inet_aton` (and so the system resolver) accepts: 1 to 4 parts, decimal, octal or hex.
_LEGACY_V4 = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}$")
_LABEL = re.compile(r"^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$")
_GLOB = re.compile(r"[*?\[]")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


@dataclass(frozen=True)
class Target:
    """A URL as it will be fetched: the one parse every decision uses."""

    url: httpx.URL
    name: str
    """The canonical host: what rules match and "Always allow" stores."""
    port: int
    literal: Address | None
    """The address when the host is one (no lookup then)."""

    def pinned(self, address: Address) -> httpx.URL:
        """The URL with the judged address as its host, so the connection cannot look the name up again."""
        return self.url.copy_with(host=str(address))

    @property
    def host_header(self) -> str:
        host = f"[{self.name}]" if ":" in self.name else self.name
        return host if self.url.port is None else f"{host}:{self.url.port}"

    @property
    def sni(self) -> str | None:
        """The name TLS sends and checks the certificate against (None for an address: checked as the address)."""
        return None if self.literal is not None else self.name


def _canonical_v6(text: str) -> Address:
    try:
        address = ipaddress.IPv6Address(text)
    except ValueError:
        raise ToolError(f"not a valid IPv6 address: {text!r}") from None
    return address.ipv4_mapped or address


def canonical(host: str) -> tuple[str, Address | None]:
    """(canonical name, its address if it is one) of a host as httpx parsed it (IDNA already applied)."""
    host = host.lower().rstrip(".")
    if not host:
        raise ToolError("the URL has no host")
    if ":" in host:  # only an IPv6 address has a colon in the host (httpx took the brackets off)
        if "%" in host:
            raise ToolError(f"an IPv6 zone ({host!r}) is not accepted: name the host or the address without it")
        address: Address = _canonical_v6(host)
        return str(address), address
    if _LEGACY_V4.match(host):
        try:
            address = ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            raise ToolError(f"not a valid IPv4 address: {host!r}") from None
        return str(address), address
    labels = host.split(".")
    if len(host) > 253 or not all(_LABEL.match(label) for label in labels):
        raise ToolError(f"not a valid host name: {host[:100]!r}")
    return host, None


def parse(url: str) -> Target:
    """The URL as web_fetch fetches it; ToolError for anything that is not a valid http(s) URL."""
    import httpx  # on first use: httpx pulls in its CLI's imports, too many for the server's start

    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError) as exc:
        raise ToolError(f"not a valid URL ({exc}): {url[:200]!r}") from None
    if parsed.scheme not in ("http", "https"):
        raise ToolError(f"not an http(s) URL: {url[:200]!r}")
    name, literal = canonical(parsed.raw_host.decode("ascii", errors="replace"))
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    return Target(parsed, name, port, literal)


def host_of(url: str) -> str:
    """What rules match: the canonical host ("" for anything that is not a valid http(s) URL)."""
    try:
        return parse(url).name
    except ToolError:
        return ""


async def resolve(target: Target) -> list[Address]:
    """Every address the name resolves to, once (off the event loop: the system resolver blocks)."""
    if target.literal is not None:
        return [target.literal]
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(target.name, target.port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ToolError(
            f"could not resolve {target.name} ({exc}): the name does not exist, or this machine is offline"
        ) from None
    found: dict[Address, None] = {}
    for *_, sockaddr in infos:
        text = str(sockaddr[0])
        found[_canonical_v6(text.split("%")[0]) if ":" in text else ipaddress.IPv4Address(text)] = None
    if not found:
        raise ToolError(f"{target.name} resolves to no address")
    return list(found)


def _embedded_v4(address: Address) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses an IPv6 address carries (compatible, NAT64, 6to4, Teredo): judged as well."""
    if isinstance(address, ipaddress.IPv4Address):
        return []
    out: list[ipaddress.IPv4Address] = []
    value = int(address)
    if value >> 32 == 0 or address in _NAT64:
        out.append(ipaddress.IPv4Address(value & 0xFFFFFFFF))
    if address.sixtofour is not None:
        out.append(address.sixtofour)
    if address.teredo is not None:
        out.extend(address.teredo)
    return out


def _kind(address: Address) -> str | None:
    """Why an address is not public ("loopback", "private", ...), None for a public one."""
    for one in [address, *_embedded_v4(address)]:
        if one.is_loopback:
            return "a loopback address (this machine)"
        if one.is_unspecified:
            return "the unspecified address (this machine)"
        if one.is_link_local:
            return "a link-local address"
        if one.is_multicast:
            return "a multicast address"
        if one.is_private or not one.is_global:
            return "a private or reserved address"
    return None


def _rules(rules: Sequence[ToolRule]) -> list[ToolRule]:
    return [r for r in rules if r.pattern is not None and fnmatch.fnmatchcase(TOOL, r.tool)]


def _names(pattern: str, name: str, address: Address) -> bool:
    """Whether a rule's pattern names this address: it matches the address, or it is exactly the host name. A
    pattern that matches anything (`*`) names nothing, and a wildcard name (`*.example.com`) does not name a private
    address: whoever runs that domain's DNS could point it at this machine's network."""
    if not any(c.isalnum() for c in pattern):
        return False
    if fnmatch.fnmatchcase(str(address), pattern):
        return True
    return not _GLOB.search(pattern) and pattern.lower().rstrip(".") == name


def judge(target: Target, addresses: Sequence[Address], rules: Sequence[ToolRule]) -> list[Address]:
    """The addresses that may be connected to, in the resolver's order; ToolError when any is denied, or not public
    and named by no allow or ask rule."""
    mine = _rules(rules)
    for address in addresses:
        for rule in mine:
            if rule.policy == "deny" and rule.pattern and fnmatch.fnmatchcase(str(address), rule.pattern):
                raise ToolError(f"{target.name} resolves to {address}, which a deny rule for web_fetch names")
    for address in addresses:
        kind = _kind(address)
        if kind is None:
            continue
        if any(r.policy != "deny" and r.pattern and _names(r.pattern, target.name, address) for r in mine):
            continue
        shown = target.name if str(address) == target.name else f"{target.name} resolves to {address}, which"
        raise ToolError(
            f"{shown} is {kind}: web_fetch does not fetch from this machine or its networks unless a rule in "
            f'the user\'s settings names the address or the exact host ([[tools.rules]] tool = "web_fetch" '
            f'pattern = "{address}" policy = "allow")'
        )
    return list(addresses)
