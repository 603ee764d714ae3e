"""A fetched body, decoded as it arrives and never past its limit.

httpx inflates a compressed body one network chunk at a time, each chunk as far as it goes: a few kilobytes of
gzip can become a gigabyte in one call, and a second `Content-Encoding: gzip` layer inflates the first layer's whole
output at once, before any size limit sees it. Here the raw bytes are inflated with zlib's `max_length`, so no call
yields more than what is still allowed; a body with more than one coding (`gzip, gzip`) or a coding other than gzip
and deflate is refused (the request only offers those two).
"""

from __future__ import annotations

import zlib

from ..errors import ToolError

ACCEPT_ENCODING = "gzip, deflate"
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def coding_of(values: list[str]) -> str | None:
    """The one content coding of a response (None: identity), from every Content-Encoding header it sent."""
    codings = [c.strip().lower() for value in values for c in value.split(",")]
    codings = [c for c in codings if c and c != "identity"]
    if len(codings) > 1:
        raise ToolError(
            f"the page is encoded more than once (Content-Encoding: {', '.join(codings)[:100]}); web_fetch refuses "
            "stacked encodings"
        )
    if codings and codings[0] not in _WBITS:
        raise ToolError(f"the page uses a content encoding web_fetch does not read ({codings[0][:40]})")
    return codings[0] if codings else None


class BoundedBody:
    """Collects a body's decoded bytes up to `limit`; `feed` says when the limit was reached (the rest is cut)."""

    def __init__(self, coding: str | None, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.coding = coding
        self._inflate = zlib.decompressobj(_WBITS[coding]) if coding else None
        self._started = False

    def feed(self, chunk: bytes) -> bool:
        """Add raw bytes from the wire; True once `limit` decoded bytes are in (stop reading then)."""
        if self._inflate is None:
            self.data += chunk[: self.limit + 1 - len(self.data)]
            return self._cut()
        pending = chunk
        while pending:
            room = self.limit + 1 - len(self.data)  # one byte more than allowed tells a cut page from a full one
            try:
                out = self._inflate.decompress(pending, room)
            except zlib.error as exc:
                if self.coding == "deflate" and not self._started:  # some servers send raw deflate, no zlib header
                    self._inflate, self._started = zlib.decompressobj(-zlib.MAX_WBITS), True
                    continue
                raise ToolError(f"the page's {self.coding} data is broken ({exc})") from None
            self._started = True
            self.data += out
            if self._cut():
                return True
            pending = self._inflate.unconsumed_tail
        return False

    def _cut(self) -> bool:
        if len(self.data) > self.limit:
            del self.data[self.limit :]
            return True
        return False
