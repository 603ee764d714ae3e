"""The embedded provider: make sure the model is on disk and llama.cpp runs, then speak to it as any llama.cpp.

Everything after start-up is the OpenAI-compatible provider (`/v1/chat/completions`, `/props` discovery); the only
addition is that each request first makes sure the child process is alive, so a crash costs one restart, not the
session.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Protocol

from ...config import LLMConfig
from ...messages import StreamEvent
from ..base import ChatRequest, ModelInfo
from ..openai_compat import OpenAIProvider
from .catalogue import CatalogueModel, resolve
from .download import OnProgress, ensure_model
from .server import EmbeddedServer, EmbeddedServerError, embedded_at, models_dir, shared_server


class Reporter(Protocol):
    async def report(self, message: str, percentage: int | None = None) -> None: ...

    async def end(self, message: str) -> None: ...


# Opens a visible progress (a terminal bar, `$/progress` in an editor) only when a download really happens.
BeginProgress = Callable[[str], Awaitable[Reporter]]


class EmbeddedProvider(OpenAIProvider):
    """An OpenAI-compatible provider bound to the embedded server it (re)starts on demand."""

    def __init__(self, server: EmbeddedServer, llm: LLMConfig) -> None:
        # Every request (chat, /v1/models, /props, embeddings) carries the server's own key, never llm.api_key.
        super().__init__(
            server.url, api_key=server.api_key, timeout_s=llm.timeout_s, connect_timeout_s=llm.connect_timeout_s
        )
        self.server = server

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        await self.server.ensure_running()
        async for event in super().stream_chat(request):
            yield event

    async def list_models(self) -> list[ModelInfo]:
        await self.server.ensure_running()
        return await super().list_models()

    async def model_info(self, model: str) -> ModelInfo:
        await self.server.ensure_running()
        info = await super().model_info(model)
        info.details.setdefault("server_facts", {})["embedded"] = {"model_path": str(self.server.model)}
        return info

    async def embed(self, model: str, inputs: list[str]) -> list[list[float]]:
        await self.server.ensure_running()
        return await super().embed(model, inputs)


def _bridge(begin: BeginProgress | None, title: str) -> tuple[OnProgress, Callable[[str], Awaitable[None]]]:
    reporter: Reporter | None = None

    async def on_progress(done: int, total: int, message: str) -> None:
        nonlocal reporter
        if begin is None:
            return
        if reporter is None:
            reporter = await begin(title)
        mb = f"{done / 1e6:,.0f}/{total / 1e6:,.0f} MB"
        await reporter.report(f"{message} ({mb})", min(100, done * 100 // max(total, 1)))

    async def finish(message: str) -> None:
        if reporter is not None:
            await reporter.end(message)

    return on_progress, finish


async def model_file(llm: LLMConfig, begin: BeginProgress | None = None) -> tuple[Path, str]:
    """(GGUF file, alias): a catalogue model is downloaded first if needed."""
    target = resolve(llm.model)
    if not isinstance(target, CatalogueModel):
        return target, target.stem
    on_progress, finish = _bridge(begin, f"Downloading the built-in model {target.name}")
    try:
        path = await ensure_model(target, models_dir(llm.embedded), on_progress)
    except BaseException as exc:
        await finish(f"failed: {exc}")
        raise
    await finish(f"{target.name} ready")
    return path, target.name


async def start_embedded(llm: LLMConfig, begin: BeginProgress | None = None) -> EmbeddedServer:
    """The shared embedded server for these settings, running (the model fetched first if needed)."""
    path, alias = await model_file(llm, begin)
    server = shared_server(path, alias, llm.embedded)
    if server.running:
        return server
    reporter = await begin(f"Starting the built-in model {alias}") if begin is not None else None
    try:
        await server.ensure_running()
    except BaseException as exc:
        if reporter is not None:
            await reporter.end(f"failed: {exc}")
        raise
    if reporter is not None:
        await reporter.end(f"llama.cpp serving {alias} on {server.url} (up in {server.started_s:.1f} s)")
    return server


def server_at(url: str) -> EmbeddedServer:
    server = embedded_at(url)
    if server is None:
        raise EmbeddedServerError(f"no embedded server was started at {url}")
    return server
