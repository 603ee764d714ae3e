"""stdin as an async line reader for the faces that serve on stdio, whatever stdin is.

A pipe or socket (what editors and ACP clients give us) is read by the event loop itself: no thread hand-off per
line. A terminal or a regular file gets a thread reader instead (making a tty non-blocking would leak to the
shell). Both keep the same line limit, so a face accepts the same messages however it was started.
"""

from __future__ import annotations

import asyncio
import io
import os
import stat
import sys
from typing import Any, Protocol


class AsyncReader(Protocol):
    async def readline(self) -> bytes: ...

    async def readexactly(self, n: int) -> bytes: ...


async def open_stdin(line_limit: int, prefix: bytes = b"") -> AsyncReader:
    """stdin, lines up to `line_limit` bytes (a longer one raises ValueError, as asyncio's reader does).
    `prefix`: bytes already read from stdin (the LSP face's early `initialize`), to be read first."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError):
        return StdinReader(line_limit, prefix)
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return StdinReader(line_limit, prefix)
    reader = asyncio.StreamReader(limit=line_limit)
    try:
        await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    except (OSError, ValueError):
        return StdinReader(line_limit, prefix)
    if prefix:
        reader.feed_data(prefix)  # before any byte the pipe delivers: the loop only reads on its next turn
    return reader


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

    def __init__(self, line_limit: int, prefix: bytes = b"") -> None:
        self._limit = line_limit
        self._stdin: Any = io.BufferedReader(_Prefixed(prefix)) if prefix else sys.stdin.buffer

    async def readline(self) -> bytes:
        return await asyncio.to_thread(self._readline)

    def _readline(self) -> bytes:
        """A line of at most the limit; a longer one is read to its end, dropped, and reported as asyncio's reader
        does (ValueError), so memory stays bounded whatever arrives."""
        line: bytes = self._stdin.readline(self._limit + 1)
        if len(line) <= self._limit or line.endswith(b"\n"):
            return line
        while True:
            rest: bytes = self._stdin.readline(self._limit)
            if not rest or rest.endswith(b"\n"):
                raise ValueError(f"a line longer than {self._limit} bytes")

    async def readexactly(self, n: int) -> bytes:
        return await asyncio.to_thread(self._stdin.read, n)
