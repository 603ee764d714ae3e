"""The models a chat can pick, described (context length from Ollama's /api/show, llama.cpp's /props, each model's
own behind llama.cpp's router, with its load state), and the message for a model the LLM server does not have: the
same facts `agent-server doctor` gives, in the chat where the user hits the problem."""

from __future__ import annotations

import asyncio
from typing import Any

from ..errors import LLMError, LLMHTTPError
from ..llm.base import ModelInfo, Provider
from ..llm.model_names import find_listed
from ..llm.router import state_of

_DESCRIBED = 20  # /api/show calls per listing: enough for a picker, bounded for servers with hundreds of models


async def describe(provider: Provider, listed: list[ModelInfo], current: str) -> list[ModelInfo]:
    """The listed models with what /api/show knows (context length, tools, thinking); embedding-only models are
    left out (they cannot chat), unless one is the configured model (the user must see what is set)."""

    async def one(model: ModelInfo) -> ModelInfo:
        if model.context_length is not None and model.supports_embeddings is not None:
            return model
        try:
            return await provider.model_info(model.name)
        except LLMError:
            return model

    described = list(await asyncio.gather(*(one(m) for m in listed[:_DESCRIBED]))) + listed[_DESCRIBED:]
    return [m for m in described if not m.supports_embeddings or m.name == current]


def missing_model(exc: LLMError, model: str, names: list[str]) -> LLMError | None:
    """A clear error for a 404 about a model the server does not list; None when that is not the problem."""
    if not isinstance(exc, LLMHTTPError) or exc.status != 404 or not names or find_listed(model, names) is not None:
        return None
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    return LLMError(
        f"The model '{model}' is not on the LLM server at {exc.url} (available: {shown}). Pick one in the chat's model "
        "list (VS Code) or with :AgentModel (Neovim), or set llm.model; `agent-server doctor` checks the setup."
    )


def as_wire(current: str, models: list[ModelInfo]) -> dict[str, Any]:
    """The `agent/_models/list` answer: the current model as the server lists it, and each chat model's facts."""
    return {
        "current": current,
        "models": [
            {
                "name": m.name,
                "contextLength": m.context_length,
                "tools": m.supports_tools,
                "thinking": m.supports_thinking,
                "vision": m.supports_vision,  # the pickers mark the models that see pictures
                # llama.cpp's router: `loaded`, `loading`, `unloaded` (picking one that is not loaded loads it)
                **({"state": state} if (state := state_of(m)) is not None else {}),
            }
            for m in models
        ],
    }
