"""What a model can do (context window, native tools, thinking), discovered once per (base_url, model) and cached."""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
from typing import Any, Protocol

from ..config import LLMConfig
from ..errors import LLMError, StoreError
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


class CapabilityStore(Protocol):
    """The two methods of `store.sessions.Store` the SQLite cache uses (kept structural to avoid an import cycle)."""

    def get_capabilities(self, base_url: str, model: str) -> dict[str, Any] | None: ...

    def put_capabilities(self, base_url: str, model: str, info: dict[str, Any]) -> None: ...


_FLAGS = ("supports_tools", "supports_thinking", "supports_embeddings", "supports_vision")


def info_to_dict(info: ModelInfo) -> dict[str, Any]:
    return dataclasses.asdict(info)


def info_from_dict(data: dict[str, Any]) -> ModelInfo | None:
    """The ModelInfo a stored dict describes, or None when it is not one (an older or damaged entry)."""
    name, ctx, details = data.get("name"), data.get("context_length"), data.get("details", {})
    if not isinstance(name, str) or not isinstance(details, dict):
        return None
    if ctx is not None and (not isinstance(ctx, int) or isinstance(ctx, bool)):
        return None
    flags = {k: data.get(k) for k in _FLAGS}
    if any(v is not None and not isinstance(v, bool) for v in flags.values()):
        return None
    return ModelInfo(name=name, context_length=ctx, details=details, **flags)


class StoreCapabilityCache:
    """Capabilities kept in the session store, so a restart does not ask the server again. Best effort: a store
    failure is logged and treated as a miss."""

    def __init__(self, store: CapabilityStore) -> None:
        self._store = store

    def get(self, base_url: str, model: str) -> ModelInfo | None:
        try:
            data = self._store.get_capabilities(base_url, model)
        except (StoreError, sqlite3.Error) as exc:
            log.warning("capability cache read failed for %s at %s: %s", model, base_url, exc)
            return None
        if data is None:
            return None
        info = info_from_dict(data)
        if info is None:
            log.warning("ignoring a malformed cached capability entry for %s at %s", model, base_url)
        return info

    def put(self, base_url: str, model: str, info: ModelInfo) -> None:
        try:
            self._store.put_capabilities(base_url, model, info_to_dict(info))
        except (StoreError, sqlite3.Error, TypeError, ValueError) as exc:
            log.warning("capability cache write failed for %s at %s: %s", model, base_url, exc)


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


_RESTARTABLE = ("llama.cpp", "lmstudio")


def _runtime_changed(old: ModelInfo, new: ModelInfo) -> bool:
    """A server restarted with another window, another template or another model file behind the same URL."""
    keys = (
        "n_ctx",
        "chat_template_caps",
        "model_alias",
        "loaded_context_length",
        "capabilities",
        "embedded",
        "modalities",
        "type",
    )
    old_facts, new_facts = old.details.get("server_facts") or {}, new.details.get("server_facts") or {}
    return (old.context_length, old.supports_tools) != (new.context_length, new.supports_tools) or any(
        old_facts.get(k) != new_facts.get(k) for k in keys
    )


async def discover(
    provider: Provider, model: str, llm: LLMConfig | None = None, cache: CapabilityCache | None = None
) -> ModelInfo:
    """The model's info with config overrides; a failed lookup gives an all-unknown ModelInfo (not cached).

    A cached entry describing a server whose window is set at its start (llama.cpp, LM Studio) is checked against
    the running server (one local GET): restarted with another window, it is replaced, and what was learnt about the
    old one (dropped tools) goes with it."""
    info = cache.get(provider.base_url, model) if cache is not None else None
    if (
        info is not None
        and cache is not None
        and (info.details.get("server_facts") or {}).get("server") in _RESTARTABLE
    ):
        try:
            fresh = await provider.model_info(model)
        except LLMError:
            fresh = info  # not reachable now: the cached entry is the best guess
        if _runtime_changed(info, fresh):
            log.info("%s at %s changed since it was cached (window %s -> %s)", model, provider.base_url,
                     info.context_length, fresh.context_length)  # fmt: skip
            cache.put(provider.base_url, model, fresh)
            info = fresh
    if info is None:
        try:
            info = await provider.model_info(model)
        except LLMError as exc:
            log.warning("could not read capabilities of %s at %s: %s", model, provider.base_url, exc)
            return apply_overrides(ModelInfo(name=model), llm)
        if cache is not None:
            cache.put(provider.base_url, model, info)
    return apply_overrides(info, llm)
