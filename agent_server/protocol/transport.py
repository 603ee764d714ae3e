"""Reading LSP-framed JSON-RPC from a stream, answering bad input instead of dropping it.

pygls's own read loop logs and drops a body that is not JSON; a client waiting for an answer would hang.
This loop answers -32700 (parse error) and -32600 (invalid request) and keeps serving. Framing garbage of any
size (a header line of megabytes, a Content-Length that is negative, huge or missing, a body that is not UTF-8)
is answered or skipped; reading resumes at the next Content-Length header, wherever it starts on a line.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re
import stat
import sys
import threading
from typing import Any, Protocol

from .. import wire_trace
from .inbound import INVALID_REQUEST, RpcProtocol, dispatch, error_message

__all__ = ["AsyncReader", "RpcProtocol", "StdinReader", "dispatch", "open_stdin", "read_loop", "serve_stdin"]

log = logging.getLogger(__name__)

_LINE_LIMIT = 1 << 20  # header lines; bodies are read by length and are not bound by it
BODY_LIMIT = 64 << 20  # a message this big is refused unread (its bytes are skipped as garbage)
# At the END of a line: after a body that was cut short, the next header is glued to the leftover bytes.
_CONTENT_LENGTH = re.compile(rb"Content-Length:[ \t]*(\S*)[ \t]*\r?\n$", re.IGNORECASE)


class AsyncReader(Protocol):
    async def readline(self) -> bytes: ...

    async def readexactly(self, n: int) -> bytes: ...


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
    """stdin read by the event loop itself when it is a pipe or socket (what editors give us): no thread hand-off
    per line. A terminal or a regular file gets the thread reader (making a tty non-blocking would leak to the shell).
    `prefix`: bytes already read from stdin (the early `initialize`), to be read first.
    """
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError):
        return StdinReader(prefix)
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return StdinReader(prefix)
    reader = asyncio.StreamReader(limit=_LINE_LIMIT)
    try:
        await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    except (OSError, ValueError):
        return StdinReader(prefix)
    if prefix:
        reader.feed_data(prefix)  # before any byte the pipe delivers: the loop only reads on its next turn
    return reader


async def serve_stdin(protocol: RpcProtocol, stop: threading.Event, prefix: bytes = b"") -> None:
    await read_loop(await open_stdin(prefix), protocol, stop)


class _Prefixed(io.RawIOBase):
    """stdin with bytes already read put back in front."""

    def __init__(self, prefix: bytes) -> None:
        self._prefix = prefix

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._prefix:
            n = min(len(buffer), len(self._prefix))
            buffer[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = os.read(0, len(buffer))
        buffer[: len(data)] = data
        return len(data)


class StdinReader:
    """Blocking stdin reads in a thread, so the event loop keeps running."""

    def __init__(self, prefix: bytes = b"") -> None:
        self._stdin: Any = io.BufferedReader(_Prefixed(prefix)) if prefix else sys.stdin.buffer

    async def readline(self) -> bytes:
        return await asyncio.to_thread(self._readline)

    def _readline(self) -> bytes:
        """A line of at most _LINE_LIMIT bytes; a longer one is read to its end, dropped, and reported as
        asyncio's reader does (ValueError), so memory stays bounded whatever arrives."""
        line: bytes = self._stdin.readline(_LINE_LIMIT + 1)
        if len(line) <= _LINE_LIMIT or line.endswith(b"\n"):
            return line
        while True:
            rest: bytes = self._stdin.readline(_LINE_LIMIT)
            if not rest or rest.endswith(b"\n"):
                raise ValueError(f"a header line longer than {_LINE_LIMIT} bytes")

    async def readexactly(self, n: int) -> bytes:
        return await asyncio.to_thread(self._stdin.read, n)
