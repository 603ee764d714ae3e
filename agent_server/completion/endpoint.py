"""Which server, model and FIM route completion uses: `completion.*` first, the chat server's settings after."""

from __future__ import annotations

import httpx

from ..config import Settings
from ..errors import LLMError
from ..llm.registry import build, is_ollama, resolve_endpoint
from .backends import FimBackend, LlamaCppInfill, OllamaGenerate, OpenAICompletions, _root
from .templates import template_for

PROBE_TIMEOUT_S = 1.5


def server_key(url: str, configured: str | None) -> str | None:
    """The key requests to `url` carry: the embedded server's own (only agent-server knows it), else the one
    configured for completion or the chat server."""
    from ..llm.embedded.server import embedded_at

    embedded = embedded_at(url)
    return embedded.api_key if embedded is not None else configured


async def is_llamacpp(client: httpx.AsyncClient, base_url: str, api_key: str | None = None) -> bool:
    """llama.cpp answers GET /props with its generation settings; other OpenAI-compatible servers answer 404."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
    try:
        response = await client.get(_root(base_url) + "/props", timeout=PROBE_TIMEOUT_S, headers=headers)
        body = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, OSError, ValueError):
        return False
    return isinstance(body, dict) and "default_generation_settings" in body


async def _first_model(provider_name: str, url: str, settings: Settings, api_key: str | None) -> str:
    provider = build(provider_name, url, settings.llm.model_copy(update={"api_key": api_key}))
    try:
        models = await provider.list_models()
    finally:
        await provider.aclose()
    if not models:
        raise LLMError(f"the completion server at {url} lists no models; set completion.model")
    return models[0].name


async def open_backend(settings: Settings, client: httpx.AsyncClient | None = None) -> FimBackend:
    """The FIM backend for `settings` (auto-detecting the server kind when `completion.provider` is `auto`)."""
    cfg = settings.completion
    own = client is None
    http = client or httpx.AsyncClient(timeout=httpx.Timeout(cfg.timeout_s, connect=min(cfg.timeout_s, 5.0)))
    try:
        provider = cfg.provider
        model = cfg.model
        url = cfg.base_url
        if url is None:
            chat_name, url, chat_model = await resolve_endpoint(settings, http)
            model = model or chat_model
            if provider == "auto":
                provider = "ollama" if chat_name == "ollama" else "openai"
        elif provider == "auto":
            provider = "ollama" if await is_ollama(http, url) else "openai"
        key = server_key(url, cfg.api_key or settings.llm.api_key)
        if provider == "openai" and cfg.provider == "auto" and await is_llamacpp(http, url, key):
            provider = "llamacpp"
        if model is None:
            family = "ollama" if provider == "ollama" else "openai"
            model = settings.llm.model or await _first_model(family, url, settings, key)
    except BaseException:
        if own:
            await http.aclose()
        raise
    args = (url, model, http, cfg.timeout_s, key)
    template = template_for(cfg.fim_template, model)
    backend: FimBackend
    if provider == "llamacpp":
        backend = LlamaCppInfill(*args)
    elif provider == "ollama":
        backend = OllamaGenerate(*args, template=template)
    else:
        backend = OpenAICompletions(*args, template=template, server_suffix=cfg.fim_template == "server")
    if own:
        backend._owns_client = True  # the backend closes the client made for it
    return backend
