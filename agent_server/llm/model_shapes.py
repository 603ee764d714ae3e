"""The provider as each model needs it, by what the server said about that model (its chat template, its router):

- **Reasoning replayed** (`GenerationOptions.replay_reasoning`) to models whose template keeps it across turns and not
  to those that drop it. A llama.cpp template says so itself (it reads `reasoning_content`, or `message.thinking` as
  gpt-oss's does); elsewhere the model's family decides: gpt-oss (Harmony: the chain of thought of a tool-calling turn
  goes back in, docs/format.md of openai/harmony), Qwen3 and QwQ (their templates keep the reasoning after the last
  user message), MiniMax-M2, Kimi-K2-Thinking and GLM-4.5/4.6/4.7 (interleaved thinking). Anything else: dropped, as
  DeepSeek-R1's template and most others do.
- **Harmony split** (`call_formats/harmony.py`) for gpt-oss when the server passes its channels through as text.
- **Loading shown** for a model behind llama.cpp's router that is not loaded yet: a `Notice` before the request
  waits for it (llm/router.py).

A model that needs none of them gets the inner stream itself: no extra layer on the per-token path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

from ..messages import Finish, Notice, StreamEvent, TextDelta
from .base import ChatRequest, ModelInfo, Provider
from .call_formats.harmony import HarmonyStream
from .router import LOADED, routed, state_of

_KEEPS_REASONING = ("gpt-oss", "gpt_oss", "qwen3", "qwq", "minimax-m2", "kimi-k2-thinking", "glm-4.5", "glm-4.6",
                    "glm-4.7")  # fmt: skip
_HARMONY = ("gpt-oss", "gpt_oss")


def _facts(info: ModelInfo | None) -> dict[str, object]:
    facts = info.details.get("server_facts") if info is not None else None
    return facts if isinstance(facts, dict) else {}


def keeps_reasoning(model: str, info: ModelInfo | None) -> bool:
    said = _facts(info).get("template_reads_reasoning")
    if isinstance(said, bool):
        return said
    name = model.lower()
    return any(family in name for family in _KEEPS_REASONING)


def writes_harmony(model: str, info: ModelInfo | None) -> bool:
    said = _facts(info).get("harmony")
    return said is True or any(family in model.lower() for family in _HARMONY)


class ModelShapes:
    """`infos`: what discovery found per model (the registry fills it; `model_info` adds what it reads)."""

    def __init__(self, inner: Provider, infos: dict[str, ModelInfo]) -> None:
        self.inner = inner
        self.infos = infos
        self.name = inner.name
        self.base_url = inner.base_url

    def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        info = self.infos.get(request.model)
        replay = keeps_reasoning(request.model, info)
        if replay != request.options.replay_reasoning:
            request = dataclasses.replace(
                request, options=dataclasses.replace(request.options, replay_reasoning=replay)
            )
        harmony = writes_harmony(request.model, info)
        router = routed(info)
        if not harmony and not router:
            return self.inner.stream_chat(request)
        return self._shaped(request, harmony, router)

    async def _shaped(self, request: ChatRequest, harmony: bool, router: bool) -> AsyncIterator[StreamEvent]:
        if router and (state := await self._state(request.model)) not in (LOADED, None):
            yield Notice(f"the LLM server is loading the model {request.model} ({state}); the answer starts after it")
        split = HarmonyStream() if harmony else None
        stream = self.inner.stream_chat(request)
        try:
            async for event in stream:
                if split is None:
                    yield event
                elif type(event) is TextDelta:
                    for part in split.feed(event.text):
                        yield part
                elif isinstance(event, Finish):
                    for part in split.close():
                        yield part
                    called = split.calls and event.reason == "stop"
                    yield Finish("tool_calls", event.usage) if called else event
                else:
                    yield event
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()

    async def _state(self, model: str) -> str | None:
        """The router's word on the model now (one GET of the model list); None when it cannot be asked."""
        try:
            listed = await self.inner.list_models()
        except Exception:  # the request itself will say what is wrong with the server
            return None
        entry = next((m for m in listed if m.name == model), None)
        return state_of(entry) if entry is not None else None

    async def list_models(self) -> list[ModelInfo]:
        return await self.inner.list_models()

    async def model_info(self, model: str) -> ModelInfo:
        info = await self.inner.model_info(model)
        self.infos[model] = info
        return info

    async def embed(self, model: str, inputs: list[str]) -> list[list[float]]:
        return await self.inner.embed(model, inputs)

    async def aclose(self) -> None:
        await self.inner.aclose()
