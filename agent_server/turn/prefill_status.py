"""What the user sees while the server reads the prompt, instead of silence.

On a CPU, a cold prompt of a few thousand tokens takes tens of seconds before the first word. llama.cpp reports its
progress at each batch (`return_progress`); this turns those reports into one status line in the thought stream,
"[agent-server: reading the prompt (1,731 tokens)… 40%… 80%… done]", which every ACP client and the terminal show
without knowing about it. Servers that report nothing (Ollama loading a model, a busy server) get one line after
WAIT_NOTE_S of silence instead.
"""

from __future__ import annotations

import asyncio

from .. import acp
from ..messages import PromptProgress
from .relay import UpdateRelay

# Prompts with fewer tokens to evaluate are read in about a second or less: no status line.
MIN_TOKENS = 256
# Silence before the "waiting for the model" line when the server sends no progress.
WAIT_NOTE_S = 3.0
WAITING = "\n[agent-server: waiting for the model (loading it or reading the prompt)…]\n"


class PrefillStatus:
    def __init__(self, relay: UpdateRelay, wait_note_s: float | None = None) -> None:
        self._relay = relay
        self._open = False  # a status line was started and not yet ended
        self._shown = -1  # the last percentage shown
        self._quiet = False  # the server spoke: no waiting note
        wait = WAIT_NOTE_S if wait_note_s is None else wait_note_s
        self._timer: asyncio.TimerHandle | None = asyncio.get_running_loop().call_later(wait, self._waiting)
        self._sends: set[asyncio.Task[None]] = set()

    def _waiting(self) -> None:
        self._timer = None
        if not self._quiet:
            task = asyncio.ensure_future(self._say(WAITING))
            self._sends.add(task)
            task.add_done_callback(self._sends.discard)

    async def _say(self, text: str) -> None:
        await self._relay.send(acp.AgentThoughtChunk(content=acp.TextContent(text=text)))

    def _hush(self) -> None:
        self._quiet = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def progress(self, event: PromptProgress) -> None:
        self._hush()
        todo = event.total - event.cache
        if todo < MIN_TOKENS:
            return
        percent = int(event.fraction * 100)
        if not self._open and self._shown < 0:
            self._open = True
            await self._say(f"\n[agent-server: reading the prompt ({todo:,} tokens)…")
        if not self._open:
            return
        if percent >= 100:
            self._open = False
            self._shown = 100
            await self._say(" done]\n")
        elif percent > max(self._shown, 0):
            self._shown = percent
            await self._say(f" {percent}%…")

    async def answer_started(self) -> None:
        """The first token (or the end of the call): the wait is over."""
        self._hush()
        if self._open:
            self._open = False
            await self._say("]\n")

    async def close(self) -> None:
        self._hush()
        for task in list(self._sends):
            await asyncio.gather(task, return_exceptions=True)
