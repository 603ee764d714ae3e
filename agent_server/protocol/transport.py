"""Reading LSP-framed JSON-RPC from a stream, answering bad input instead of dropping it.

pygls's own read loop logs and drops a body that is not JSON; a client waiting for an answer would hang.
This loop answers -32700 (parse error) and -32600 (invalid request) and keeps serving. Framing garbage of any
size (a header line of megabytes, a Content-Length that is negative, huge or missing, a body that is not UTF-8)
is answered or skipped; reading resumes at the next Content-Length header, wherever it starts on a line.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading

from .. import wire_trace
from ..host import stdin as host_stdin
from ..host.stdin import AsyncReader
from .inbound import INVALID_REQUEST, RpcProtocol, dispatch, error_message

__all__ = ["AsyncReader", "RpcProtocol", "dispatch", "open_stdin", "read_loop", "serve_stdin"]

log = logging.getLogger(__name__)

_LINE_LIMIT = 1 << 20  # header lines; bodies are read by length and are not bound by it
BODY_LIMIT = 64 << 20  # a message this big is refused unread (its bytes are skipped as garbage)
# At the END of a line: after a body that was cut short, the next header is glued to the leftover bytes.
_CONTENT_LENGTH = re.compile(rb"Content-Length:[ \t]*(\S*)[ \t]*\r?\n$", re.IGNORECASE)


def _length(value: bytes) -> int | str:
    """The body length a Content-Length value gives, or why it gives none."""
    if not value.isdigit() or len(value) > 12:
        return f"Content-Length {value[:40].decode('latin-1')!r} is not a byte count"
    length = int(value)
    if length == 0:
        return "Content-Length 0: an empty message"
    if length > BODY_LIMIT:
        return f"Content-Length {length} is over the limit of {BODY_LIMIT} bytes"
    return length


async def read_loop(reader: AsyncReader, protocol: RpcProtocol, stop: threading.Event) -> None:
    content_length: int | None = None
    problem: str | None = None  # why the header block being read cannot frame a message
    while not stop.is_set():
        try:
            header = await reader.readline()
        except ValueError:  # asyncio's LimitOverrunError: the reader has dropped the over-long line
            content_length, problem = None, f"a header line longer than {_LINE_LIMIT} bytes"
            continue
        if not header:
            break
        if header.strip():
            match = _CONTENT_LENGTH.search(header)
            if match:
                found = _length(match.group(1))
                content_length, problem = (found, None) if isinstance(found, int) else (None, found)
            continue  # another header (Content-Type), or garbage between messages
        if content_length is None:
            if problem is not None:  # a header block without a usable length: say so, then resynchronize
                protocol._send_data(error_message(None, INVALID_REQUEST, f"Invalid Request: {problem}"))
                problem = None
            continue
        try:
            body = await reader.readexactly(content_length)
        except asyncio.IncompleteReadError:
            break  # the client hung up mid-message
        content_length = None
        if not body:
            break
        wire_trace.trace("lsp", "client->server", body)
        try:
            dispatch(protocol, body)
        except Exception:
            log.exception("unexpected error while handling a message")


async def open_stdin(prefix: bytes = b"") -> AsyncReader:
    """stdin for LSP framing (`host/stdin.py`): header lines up to _LINE_LIMIT; bodies are read by length."""
    return await host_stdin.open_stdin(_LINE_LIMIT, prefix)


async def serve_stdin(protocol: RpcProtocol, stop: threading.Event, prefix: bytes = b"") -> None:
    await read_loop(await open_stdin(prefix), protocol, stop)
