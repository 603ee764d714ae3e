"""Reading LSP-framed JSON-RPC from a stream, answering bad input instead of dropping it.

pygls's own read loop logs and drops a body that is not JSON; a client waiting for an answer would hang.
This loop answers -32700 (parse error) and -32600 (invalid request) and keeps serving.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import stat
import sys
import threading
from typing import Any, Protocol

log = logging.getLogger(__name__)

_LINE_LIMIT = 1 << 20  # header lines; bodies are read by length and are not bound by it
_CONTENT_LENGTH = re.compile(rb"^Content-Length: *(\d+)\r?\n$", re.IGNORECASE)


class AsyncReader(Protocol):
    async def readline(self) -> bytes: ...

    async def readexactly(self, n: int) -> bytes: ...


class RpcProtocol(Protocol):
    def structure_message(self, data: dict[str, Any]) -> Any: ...

    def handle_message(self, message: Any) -> None: ...

    def _send_data(self, data: Any) -> None: ...


def _error(msg_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def dispatch(protocol: RpcProtocol, body: bytes) -> None:
    """Parse one message body and hand it to the protocol, or answer why it cannot be."""
    try:
        raw = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        protocol._send_data(_error(None, -32700, f"Parse error: {exc}"))
        return
    if (
        not isinstance(raw, dict)
        or raw.get("jsonrpc") != "2.0"
        or not (isinstance(raw.get("method"), str) or "id" in raw)
    ):
        msg_id = raw.get("id") if isinstance(raw, dict) else None
        protocol._send_data(_error(msg_id, -32600, "Invalid Request: expected a JSON-RPC 2.0 object"))
        return
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except Exception as exc:
        if "method" not in raw:
            # A malformed answer to one of our requests: fail that request instead of waiting forever.
            futures = getattr(protocol, "_request_futures", {})
            pending = futures.pop(raw.get("id"), None)
            if pending is not None and not pending.done():
                pending.set_exception(ValueError(f"the client answered with a malformed result: {exc}"))
            else:
                log.warning("dropping a malformed response %r: %s", raw.get("id"), exc)
        elif "id" in raw:
            protocol._send_data(_error(raw["id"], -32602, f"Invalid params for {raw['method']}: {exc}"))
        else:
            log.warning("dropping a malformed notification %r: %s", raw.get("method"), exc)
        return
    protocol.handle_message(message)


async def read_loop(reader: AsyncReader, protocol: RpcProtocol, stop: threading.Event) -> None:
    content_length = 0
    while not stop.is_set():
        header = await reader.readline()
        if not header:
            break
        match = _CONTENT_LENGTH.match(header)
        if match:
            content_length = int(match.group(1))
            continue
        if header.strip():
            continue  # another header (Content-Type)
        if not content_length:
            continue
        try:
            body = await reader.readexactly(content_length)
        except asyncio.IncompleteReadError:
            break  # the client hung up mid-message
        content_length = 0
        if not body:
            break
        try:
            dispatch(protocol, body)
        except Exception:
            log.exception("unexpected error while handling a message")


async def open_stdin() -> AsyncReader:
    """stdin read by the event loop itself when it is a pipe or socket (what editors give us): no thread hand-off
    per line. A terminal or a regular file gets the thread reader (making a tty non-blocking would leak to the shell).
    """
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError):
        return StdinReader()
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return StdinReader()
    reader = asyncio.StreamReader(limit=_LINE_LIMIT)
    try:
        await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    except (OSError, ValueError):
        return StdinReader()
    return reader


async def serve_stdin(protocol: RpcProtocol, stop: threading.Event) -> None:
    await read_loop(await open_stdin(), protocol, stop)


class StdinReader:
    """Blocking stdin reads in a thread, so the event loop keeps running."""

    def __init__(self) -> None:
        self._stdin = sys.stdin.buffer

    async def readline(self) -> bytes:
        return await asyncio.to_thread(self._stdin.readline)

    async def readexactly(self, n: int) -> bytes:
        return await asyncio.to_thread(self._stdin.read, n)
