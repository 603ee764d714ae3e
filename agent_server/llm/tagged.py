"""The shared provider as one session (or one kind of work) uses it: its requests marked with the session they belong
to and what they are for, which `llm/wire.py` turns into the session-affinity header and the request's priority."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

from ..messages import StreamEvent
from .base import ChatRequest, ModelInfo, Provider, Purpose


class Tagged:
    """`session_id` fills requests that name no session; `purpose` replaces "turn" (a subagent's rounds)."""

    def __init__(self, inner: Provider, session_id: str = "", purpose: Purpose | None = None) -> None:
        self.inner = inner
        self.session_id = session_id
        self.purpose = purpose
        self.name = inner.name
        self.base_url = inner.base_url

    def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        changes: dict[str, str] = {}
        if self.session_id and not request.session_id:
            changes["session_id"] = self.session_id
        if self.purpose is not None and request.purpose == "turn":
            changes["purpose"] = self.purpose
        return self.inner.stream_chat(dataclasses.replace(request, **changes) if changes else request)  # type: ignore[arg-type]

    async def list_models(self) -> list[ModelInfo]:
        return await self.inner.list_models()

    async def model_info(self, model: str) -> ModelInfo:
        return await self.inner.model_info(model)

    async def embed(self, model: str, inputs: list[str]) -> list[list[float]]:
        return await self.inner.embed(model, inputs)

    async def aclose(self) -> None:
        """The shared provider outlives the session: the service closes it."""
