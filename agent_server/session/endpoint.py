"""The LLM endpoint every session of a service shares: resolved on first use (session/new must work while the LLM
server is down), replaced when the settings or the chosen model change, and closed only once nothing streams from
it any more (a running turn finishes on the provider it started with)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from ..client_contract import AgentClient
from ..config import Settings
from ..llm.base import ModelInfo, Provider
from ..store import Store
from ..tools.base import Services

if TYPE_CHECKING:
    from ..llm.slot_cache import SlotCache


class Endpoint:
    def __init__(self, store: Store, services: Services, busy: Callable[[], bool]) -> None:
        self._store = store
        self._services = services
        self._busy = busy  # whether any turn streams now: retired providers stay open until none does
        self._provider: Provider | None = None
        self._model: str | None = None
        self._info: ModelInfo | None = None
        self._lock = asyncio.Lock()
        self._retired: list[Provider] = []
        self._listing = 0  # model listings in flight (they use the provider too)
        self.slots: SlotCache | None = None  # saved sessions' KV caches (llama.cpp with llm.slot_save_path)

    @property
    def model(self) -> str | None:
        """The resolved model's name, or None before the first use."""
        return self._model

    def use(self, provider: Provider, model: str, info: ModelInfo | None = None) -> None:
        """Serve every session from `provider` (an in-process `ScriptedProvider` in tests, a provider an embedding
        application built itself) instead of resolving one from the settings."""
        self._provider, self._model, self._info = provider, model, info

    async def get(
        self, settings: Settings, client: AgentClient | None = None
    ) -> tuple[Provider, str, ModelInfo | None]:
        """The provider, resolving it if needed. `client` shows the download of the built-in model, if one is
        needed (a progress bar in the terminal, `$/progress` in editors)."""
        async with self._lock:
            if self._provider is None or self._model is None:
                from ..llm.capabilities import StoreCapabilityCache
                from ..llm.registry import open_provider

                cache = StoreCapabilityCache(self._store)
                self._services["capability_cache"] = cache  # the loop remembers what it learns (dropped tools)
                begin = client.begin_progress if client is not None else None
                self._provider, self._model, self._info = await open_provider(settings, cache=cache, begin=begin)
                from ..llm.slot_cache import slot_cache_for  # httpx and its CLI's imports: not at start

                self.slots = slot_cache_for(settings.llm, self._provider, self._info)
            return self._provider, self._model, self._info

    async def for_session(
        self, settings: Settings, session_id: str, client: AgentClient | None = None
    ) -> tuple[Provider, str, ModelInfo | None]:
        """The provider as a turn of `session_id` uses it: its requests carry the session (llm/tagged.py: the
        session-affinity header), through the slot cache when there is one (saved sessions resume warm,
        llm/slot_cache.py)."""
        from ..llm.tagged import Tagged

        provider, model, info = await self.get(settings, client)
        tagged = Tagged(provider, session_id)
        slots = self.slots
        return (slots.wrap(tagged, session_id) if slots is not None else tagged), model, info

    def idle(self, session_id: str) -> None:
        """The session went idle: its KV cache is saved if it stays so."""
        if self.slots is not None:
            self.slots.idle(session_id)

    @asynccontextmanager
    async def listing(self) -> AsyncIterator[None]:
        """A model listing in flight: a model switch meanwhile must not close the provider under it."""
        self._listing += 1
        try:
            yield
        finally:
            self._listing -= 1

    async def replace(self) -> None:
        """Drop the current provider (new settings or model): the next use resolves the endpoint again."""
        async with self._lock:
            if self._provider is not None:
                self._retired.append(self._provider)
            if self.slots is not None:
                await self.slots.aclose()
            self._provider, self._model, self._info, self.slots = None, None, None, None
            await self.close_retired()

    async def close_retired(self) -> None:
        """Close replaced providers once no turn streams from them and no listing uses them."""
        if self._busy() or self._listing:
            return
        retired, self._retired = self._retired, []
        for provider in retired:
            await provider.aclose()

    async def aclose(self) -> None:
        if self.slots is not None:
            await self.slots.aclose()
        for provider in [*self._retired, *([self._provider] if self._provider else [])]:
            await provider.aclose()
