"""Relays streamed text and thinking to the client, coalescing bursts so editors are not flooded.

A delta is buffered and sent by a callback the event loop runs once the current work is done (`call_soon`): every
piece decoded from one network read goes out in one notification, with no added wait. Notifications are at least
`interval` apart: a delta arriving sooner waits for the rest of the interval (a timer), so no piece waits longer
than `interval` plus the processing of its read. Other updates flush the pending text first so the order the client
sees is the order the model produced.

The 1 ms interval is measured (tests/benchmarks/bench_relay.py): against 2 ms it halves the wait of pieces that come
faster than one per interval for at most 1000 notifications a second; typical local models (20-150 tokens/s) are
relayed token by token with either setting.

A client may offer `session_update_nowait(session_id, update) -> None`, a synchronous send (the LSP client's
notifications never wait); the relay then sends from its callbacks directly instead of through a task per chunk.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Literal

from .. import acp
from ..client_contract import AgentClient

Kind = Literal["text", "thinking"]
SendNow = Callable[[str, acp.SessionUpdate], None]


class UpdateRelay:
    def __init__(self, client: AgentClient, session_id: str, interval: float = 0.001) -> None:
        self._client = client
        self._session_id = session_id
        self._interval = interval
        self._kind: Kind = "text"
        self._buffer: list[str] = []
        self._last_flush = -interval
        self._handle: asyncio.Handle | None = None  # the scheduled flush (call_soon or call_later)
        self._pending_sends: set[asyncio.Task[None]] = set()
        self._send_now: SendNow | None = getattr(client, "session_update_nowait", None)

    async def delta(self, kind: Kind, text: str) -> None:
        if not text:
            return
        if kind != self._kind and self._buffer:
            await self.flush()
        self.push(kind, text)

    def push(self, kind: Kind, text: str) -> bool:
        """Buffer a delta without waiting; False (nothing buffered) when the caller must `await delta()` instead
        because the kind changed and the pending text of the other kind has to go first."""
        if kind != self._kind:
            if self._buffer:
                return False
            self._kind = kind
        if text:
            self._buffer.append(text)
            if self._handle is None:
                loop = asyncio.get_running_loop()
                wait = self._interval - (loop.time() - self._last_flush)
                if wait <= 0:
                    self._handle = loop.call_soon(self._flush_later)
                else:
                    self._handle = loop.call_later(wait, self._flush_later)
        return True

    def _flush_later(self) -> None:
        self._handle = None
        update = self._take()
        if update is None:
            return
        if self._send_now is not None and not self._pending_sends:
            self._send_now(self._session_id, update)
            return
        task = asyncio.ensure_future(self._client.session_update(self._session_id, update))
        self._pending_sends.add(task)
        task.add_done_callback(self._pending_sends.discard)

    def _take(self) -> acp.SessionUpdate | None:
        if not self._buffer:
            return None
        text = "".join(self._buffer)
        self._buffer.clear()
        self._last_flush = asyncio.get_running_loop().time()
        # Built by us from a plain str: validation would only repeat what the types already say.
        block = acp.TextContent.model_construct(text=text)
        if self._kind == "thinking":
            return acp.AgentThoughtChunk.model_construct(content=block)
        return acp.AgentMessageChunk.model_construct(content=block)

    async def flush(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._pending_sends:
            await asyncio.gather(*self._pending_sends, return_exceptions=True)
        update = self._take()
        if update is not None:
            await self._client.session_update(self._session_id, update)

    async def send(self, update: acp.SessionUpdate) -> None:
        """Any other update: flush pending text first to keep the order."""
        await self.flush()
        await self._client.session_update(self._session_id, update)
