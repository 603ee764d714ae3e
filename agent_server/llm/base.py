"""The provider seam: a normalized request in, an async iterator of `StreamEvent` out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from ..messages import Message, StreamEvent


@dataclass
class ToolSpec:
    """What the model sees of a tool: name, description and a JSON schema for its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass
class GenerationOptions:
    temperature: float | None = None
    max_tokens: int | None = None  # Ollama num_predict / OpenAI max_tokens
    num_ctx: int | None = None  # Ollama only; OpenAI-compatible servers fix it at load time
    top_p: float | None = None
    seed: int | None = None
    stop: list[str] | None = None
    think: bool | str | None = None  # None = let the server decide
    keep_alive: str | int | None = None  # Ollama only
    progress: bool = False  # llama.cpp only: stream prompt-processing progress (PromptProgress events)
    # "required": the reply must be a tool call (OpenAI-compatible servers; llama.cpp enforces it with a grammar).
    tool_choice: str | None = None
    # Assistant messages carry their reasoning back (`reasoning_content`, Ollama's `thinking`): for models whose chat
    # template keeps it across turns (llm/model_shapes.py decides), and only for them.
    replay_reasoning: bool = False


# What a request is for: a shared server may rank them (llm/wire.py, vLLM's priority) and a router keep a session's
# requests together; the user's turn comes first.
Purpose = Literal["turn", "subagent", "summary", "embedding"]


@dataclass
class ChatRequest:
    model: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    options: GenerationOptions = field(default_factory=GenerationOptions)
    session_id: str = ""  # the session whose turn sends it (a hash of it goes in llm.session_header)
    purpose: Purpose = "turn"


@dataclass
class ModelInfo:
    """What we know about one model; None means unknown."""

    name: str
    context_length: int | None = None
    supports_tools: bool | None = None
    supports_thinking: bool | None = None
    supports_embeddings: bool | None = None
    supports_vision: bool | None = None
    details: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Provider(Protocol):
    """One LLM endpoint. Errors raised are subclasses of `errors.LLMError`."""

    name: str  # "ollama" | "openai"
    base_url: str

    def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream one model call. The last event is `Finish`; closing the iterator closes the HTTP stream."""
        ...

    async def list_models(self) -> list[ModelInfo]: ...

    async def model_info(self, model: str) -> ModelInfo: ...

    async def embed(self, model: str, inputs: list[str]) -> list[list[float]]: ...

    async def aclose(self) -> None: ...
