"""Relays streamed text and thinking to the client, coalescing bursts so editors are not flooded.

A delta is sent at once unless another was sent less than `interval` ago; then it waits at most `interval`
for company. So a slow stream is relayed piece by piece and a fast one in a few larger chunks, and no piece
waits longer than `interval`. Other updates flush the pending text first so the order the client sees is
the order the model produced.

The 1 ms interval is measured (tests/benchmarks/bench_relay.py): against 2 ms it halves the wait of pieces that come
faster than one per interval (p99 ~2 ms instead of ~5-7 ms at ~800 pieces/s) for at most 1000 notifications a second;
typical local models (20-150 tokens/s) are relayed token by token with either setting.
"""

from __future__ import annotations

import asyncio
import time
from typing import Literal

from .. import acp
from .client import AgentClient

Kind = Literal["text", "thinking"]


class UpdateRelay:
    def __init__(self, client: AgentClient, session_id: str, interval: float = 0.001) -> None:
        self._client = client
        self._session_id = session_id
        self._interval = interval
        self._kind: Kind = "text"
        self._buffer: list[str] = []
        self._last_flush = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._pending_sends: set[asyncio.Task[None]] = set()

    async def delta(self, kind: Kind, text: str) -> None:
        if not text:
            return
        if kind != self._kind and self._buffer:
            await self.flush()
        self._kind = kind
        self._buffer.append(text)
        elapsed = time.monotonic() - self._last_flush
        if elapsed >= self._interval:
            await self.flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self._interval - elapsed, self._flush_later)

    def _flush_later(self) -> None:
        self._timer = None
        update = self._take()
        if update is not None:
            task = asyncio.ensure_future(self._client.session_update(self._session_id, update))
            self._pending_sends.add(task)
            task.add_done_callback(self._pending_sends.discard)

    def _take(self) -> acp.SessionUpdate | None:
        if not self._buffer:
            return None
        text = "".join(self._buffer)
        self._buffer.clear()
        self._last_flush = time.monotonic()
        block = acp.TextContent(text=text)
        if self._kind == "thinking":
            return acp.AgentThoughtChunk(content=block)
        return acp.AgentMessageChunk(content=block)

    async def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._pending_sends:
            await asyncio.gather(*self._pending_sends, return_exceptions=True)
        update = self._take()
        if update is not None:
            await self._client.session_update(self._session_id, update)

    async def send(self, update: acp.SessionUpdate) -> None:
        """Any other update: flush pending text first to keep the order."""
        await self.flush()
        await self._client.session_update(self._session_id, update)
