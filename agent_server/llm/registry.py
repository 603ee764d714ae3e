"""From settings to a working provider: a name table, auto-detection of a local server, and the model to use."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import httpx

from ..config import LLMConfig, Settings
from ..errors import LLMConnectionError, LLMError
from .base import ModelInfo, Provider
from .capabilities import CapabilityCache, MemoryCapabilityCache, discover
from .embedded.install_hint import install_command
from .model_shapes import ModelShapes
from .ollama import OllamaProvider
from .openai_compat import OpenAIProvider
from .resilient import FallbackProvider, RetryingProvider
from .wire import wire_for

if TYPE_CHECKING:
    from .embedded.provider import BeginProgress

log = logging.getLogger(__name__)

OLLAMA_URL = "http://127.0.0.1:11434"
LMSTUDIO_URL = "http://127.0.0.1:1234"
DEFAULT_URLS = {"ollama": OLLAMA_URL, "openai": LMSTUDIO_URL}
PROBE_TIMEOUT_S = 1.0
# Ollama unloads an idle model after 5 minutes by default; reloading it is a cold start the user waits through.
OLLAMA_KEEP_ALIVE = "30m"

Factory = Callable[[str, LLMConfig], Provider]

PROVIDERS: dict[str, Factory] = {
    "ollama": lambda url, llm: OllamaProvider(
        url,
        timeout_s=llm.timeout_s,
        connect_timeout_s=llm.connect_timeout_s,
        keep_alive=llm.keep_alive or OLLAMA_KEEP_ALIVE,
        wire=wire_for(llm),
    ),
    "openai": lambda url, llm: OpenAIProvider(
        url,
        api_key=llm.api_key,
        timeout_s=llm.timeout_s,
        connect_timeout_s=llm.connect_timeout_s,
        wire=wire_for(llm),
    ),
    "embedded": lambda url, llm: _embedded(url, llm),
}


def _embedded(url: str, llm: LLMConfig) -> Provider:
    """The provider of an embedded server started by `resolve_endpoint` (imported late: an optional extra)."""
    from .embedded.provider import EmbeddedProvider, server_at

    return EmbeddedProvider(server_at(url), llm)


class NoServerError(LLMConnectionError):
    """Auto-detection found no server; `embedded` says whether the built-in model can be used instead."""

    def __init__(self, url: str, cause: str, embedded: dict[str, object]) -> None:
        super().__init__(url, cause)
        self.embedded = embedded


def embedded_offer(llm: LLMConfig) -> dict[str, object]:
    """What an editor needs to offer the built-in model in one action: the setting to write and what it costs."""
    from .embedded.catalogue import DEFAULT_MODEL, lookup
    from .embedded.download import cached_path
    from .embedded.server import models_dir, xllamacpp_installed

    entry = lookup(DEFAULT_MODEL)
    assert entry is not None
    return {
        "available": xllamacpp_installed(),
        "model": entry.name,
        "downloaded": cached_path(entry, models_dir(llm.embedded)) is not None,
        "downloadBytes": entry.size,
        "settings": {"llm.provider": "embedded"},
        "install": install_command(),
    }


_cache: CapabilityCache = MemoryCapabilityCache()


def guess_provider(base_url: str) -> str:
    """A URL on Ollama's port without `/v1` speaks the native API; anything else is OpenAI-compatible.

    Only a fallback for when the server cannot be asked (see `detect_provider`)."""
    url = base_url.rstrip("/")
    return "ollama" if ":11434" in url and not url.endswith("/v1") else "openai"


def _root(base_url: str) -> str:
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


async def is_ollama(client: httpx.AsyncClient, base_url: str, timeout_s: float = PROBE_TIMEOUT_S) -> bool:
    """Ollama answers GET /api/version with {"version": "..."}; other servers answer 404 (or an error body)."""
    try:
        response = await client.get(_root(base_url) + "/api/version", timeout=timeout_s)
        body = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, OSError, ValueError):
        return False
    return isinstance(body, dict) and isinstance(body.get("version"), str) and "error" not in body


async def detect_provider(client: httpx.AsyncClient, base_url: str) -> tuple[str, str]:
    """(provider, URL) for a configured `llm.base_url` without `llm.provider`: ask the server, don't guess.

    An Ollama behind a proxy, on another port or given with `/v1` gets the native API at its root (only there
    can `num_ctx` be set; its OpenAI endpoint silently truncates at the default). A server that does not
    answer keeps the port-based guess, so the real error comes from the first request.
    """
    if await is_ollama(client, base_url):
        return "ollama", _root(base_url)
    try:
        await client.get(base_url.rstrip("/"), timeout=PROBE_TIMEOUT_S)
    except (httpx.HTTPError, OSError):
        return guess_provider(base_url), base_url  # not reachable now: the port-based guess
    return "openai", base_url


def build(name: str, base_url: str, llm: LLMConfig) -> Provider:
    try:
        factory = PROVIDERS[name]
    except KeyError:
        raise LLMError(f"unknown LLM provider '{name}' (known: {', '.join(sorted(PROVIDERS))})") from None
    return factory(base_url, llm)


def wrap(primary: Provider, model: str, llm: LLMConfig, infos: dict[str, ModelInfo] | None = None) -> Provider:
    """Each endpoint shaped per model (`infos`: what discovery found) and retried, then the fallback chain."""
    infos = {} if infos is None else infos

    def retried(provider: Provider) -> Provider:
        return RetryingProvider(
            ModelShapes(provider, infos), tries=llm.retries, retry_after_max_s=llm.retry_after_max_s
        )

    chain: list[tuple[Provider, str]] = [(retried(primary), model)]
    for fb in llm.fallbacks:
        url = fb.base_url or primary.base_url
        name = fb.provider or (primary.name if fb.base_url is None else guess_provider(url))
        chain.append((retried(build(name, url, llm)), fb.model))
    return chain[0][0] if len(chain) == 1 else FallbackProvider(chain)


async def _probe(client: httpx.AsyncClient, url: str, timeout_s: float) -> bool:
    try:
        response = await client.get(url, timeout=timeout_s)
    except (httpx.HTTPError, OSError):
        return False
    return response.status_code == 200


async def autodetect(
    client: httpx.AsyncClient,
    ollama_url: str = OLLAMA_URL,
    lmstudio_url: str = LMSTUDIO_URL,
    timeout_s: float = PROBE_TIMEOUT_S,
) -> tuple[str, str] | None:
    """(provider name, base URL) of a local server: Ollama first (GET /api/version), then LM Studio (GET /v1/models)."""
    ollama, lmstudio = await asyncio.gather(
        _probe(client, ollama_url.rstrip("/") + "/api/version", timeout_s),
        _probe(client, lmstudio_url.rstrip("/") + "/v1/models", timeout_s),
    )
    if ollama:
        return "ollama", ollama_url.rstrip("/")
    if lmstudio:
        return "openai", lmstudio_url.rstrip("/")
    return None


async def resolve_endpoint(
    settings: Settings,
    client: httpx.AsyncClient | None = None,
    ollama_url: str = OLLAMA_URL,
    lmstudio_url: str = LMSTUDIO_URL,
    begin: BeginProgress | None = None,
) -> tuple[str, str, str]:
    """(provider name, base URL, model): config first, else auto-detection; no model configured = the first listed.

    The embedded provider is started here (its model downloaded first, with `begin` opening the progress)."""
    llm = settings.llm
    name: str
    if llm.provider == "embedded":
        return await _resolve_embedded(llm, begin)
    if llm.provider:
        url = llm.base_url or DEFAULT_URLS[llm.provider]
        name = llm.provider
    elif llm.base_url:
        async with _client(client) as c:
            name, url = await detect_provider(c, llm.base_url)
    else:
        async with _client(client) as c:
            found = await autodetect(c, ollama_url, lmstudio_url)
        if found is None:
            if llm.embedded.when_no_server == "use":
                return await _resolve_embedded(llm.model_copy(update={"model": None}), begin)
            offer: dict[str, object] = (
                embedded_offer(llm) if llm.embedded.when_no_server == "offer" else {"available": False}
            )
            hint = (
                ', or use the built-in local model: llm.provider = "embedded"'
                if offer.get("available")
                else (f", or install the built-in local model: {install_command()}")
                if llm.embedded.when_no_server == "offer"
                else ""
            )
            raise NoServerError(
                f"{ollama_url} (Ollama) and {lmstudio_url} (LM Studio)",
                f"no local LLM server answered; start one or set llm.provider / llm.base_url{hint}",
                offer,
            )
        name, url = found
    model = llm.model
    if not model:
        provider = build(name, url, llm)
        try:
            models = await provider.list_models()
        finally:
            await provider.aclose()
        if not models:
            raise LLMError(f"the LLM server at {url} lists no models; pull one or set llm.model")
        model = models[0].name
    return name, url, model


async def _resolve_embedded(llm: LLMConfig, begin: BeginProgress | None) -> tuple[str, str, str]:
    from .embedded.provider import start_embedded

    server = await start_embedded(llm, begin)
    return "embedded", server.url, server.alias


class _client:
    """The caller's client, or a short-lived one closed afterwards."""

    def __init__(self, client: httpx.AsyncClient | None) -> None:
        self._given = client
        self._own: httpx.AsyncClient | None = None

    async def __aenter__(self) -> httpx.AsyncClient:
        if self._given is not None:
            return self._given
        self._own = httpx.AsyncClient()
        return self._own

    async def __aexit__(self, *exc: object) -> None:
        if self._own is not None:
            await self._own.aclose()


async def open_provider(
    settings: Settings, cache: CapabilityCache | None = None, begin: BeginProgress | None = None
) -> tuple[Provider, str, ModelInfo | None]:
    """Resolve the endpoint and model, build the wrapped provider, and read the model's capabilities."""
    name, url, model = await resolve_endpoint(settings, begin=begin)
    llm = settings.llm
    infos: dict[str, ModelInfo] = {}
    provider = wrap(build(name, url, llm), model, llm, infos)
    info = await discover(provider, model, llm, cache if cache is not None else _cache)
    infos.setdefault(model, info)  # a cached entry was not read through the provider
    return provider, model, info
