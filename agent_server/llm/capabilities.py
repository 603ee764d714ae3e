"""What a model can do (context window, native tools, thinking), discovered once per (base_url, model) and cached."""

from __future__ import annotations

import dataclasses
import logging
from typing import Protocol

from ..config import LLMConfig
from ..errors import LLMError
from .base import ModelInfo, Provider

log = logging.getLogger(__name__)


class CapabilityCache(Protocol):
    """Storage for discovered ModelInfo; a SQLite-backed store can implement the same two methods."""

    def get(self, base_url: str, model: str) -> ModelInfo | None: ...

    def put(self, base_url: str, model: str, info: ModelInfo) -> None: ...


class MemoryCapabilityCache:
    def __init__(self) -> None:
        self._items: dict[tuple[str, str], ModelInfo] = {}

    def get(self, base_url: str, model: str) -> ModelInfo | None:
        return self._items.get((base_url, model))

    def put(self, base_url: str, model: str, info: ModelInfo) -> None:
        self._items[(base_url, model)] = info


def apply_overrides(info: ModelInfo, llm: LLMConfig | None) -> ModelInfo:
    """Config wins over discovery: `llm.context_length`, and `llm.tool_mode` native/prompt forces tool support."""
    if llm is None:
        return info
    out = dataclasses.replace(info, details=dict(info.details))
    if llm.context_length is not None:
        out.context_length = llm.context_length
    if llm.tool_mode == "native":
        out.supports_tools = True
    elif llm.tool_mode == "prompt":
        out.supports_tools = False
    return out


async def discover(
    provider: Provider, model: str, llm: LLMConfig | None = None, cache: CapabilityCache | None = None
) -> ModelInfo:
    """The model's info with config overrides; a failed lookup gives an all-unknown ModelInfo (not cached)."""
    info = cache.get(provider.base_url, model) if cache is not None else None
    if info is None:
        try:
            info = await provider.model_info(model)
        except LLMError as exc:
            log.warning("could not read capabilities of %s at %s: %s", model, provider.base_url, exc)
            return apply_overrides(ModelInfo(name=model), llm)
        if cache is not None:
            cache.put(provider.base_url, model, info)
    return apply_overrides(info, llm)
