"""Normalized message and stream-event types shared by every layer.

These are plain values: providers translate their wire formats into them, the loop accumulates them,
the store persists them and the protocol layer renders them. Ids and persistence are the store's concern.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]


@dataclass
class ToolCall:
    """One call the model asked for. `arguments` is always a dict once parsed."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    # Set when the model's arguments were not valid JSON: the loop turns it into an error result.
    arguments_error: str | None = None


@dataclass(frozen=True)
class Image:
    """A picture the user attached: checked (mime type by its magic bytes, size) before it gets here."""

    mime_type: str  # image/png, image/jpeg, image/gif, image/webp
    data: str  # base64, as the wire formats send it
    name: str = ""  # where it came from (a file name), for the notes that stand in for it

    @property
    def size(self) -> int:
        """Decoded bytes (from the base64 length)."""
        return len(self.data) * 3 // 4 - self.data[-2:].count("=")


@dataclass
class Message:
    role: Role
    content: str = ""
    thinking: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None  # role == "tool": the call this answers
    tool_name: str | None = None  # role == "tool": the tool that ran (Ollama wants it)
    # Free-form data that is not sent to the model (e.g. {"nudge": "continuation"}, {"summary": True}).
    meta: dict[str, Any] = field(default_factory=dict)
    # role == "user": pictures sent with the text to a vision model (context/images.py decides which are sent).
    images: list[Image] = field(default_factory=list)


@dataclass
class Usage:
    """Token counts and timings as the server reported them; a missing metric is 0."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    total_duration_ms: float = 0.0
    load_duration_ms: float = 0.0
    prompt_eval_duration_ms: float = 0.0
    eval_duration_ms: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


# Normalized finish reasons of one model call.
FinishReason = Literal["stop", "length", "tool_calls", "error", "cancelled"]


@dataclass
class TextDelta:
    text: str
    type: Literal["text"] = "text"


@dataclass
class ThinkingDelta:
    text: str
    type: Literal["thinking"] = "thinking"


@dataclass
class ToolCallEvent:
    """A complete tool call (providers assemble fragments before emitting)."""

    call: ToolCall
    type: Literal["tool_call"] = "tool_call"


@dataclass
class Finish:
    """Always the last event of a successful stream."""

    reason: FinishReason
    usage: Usage = field(default_factory=Usage)
    type: Literal["finish"] = "finish"


@dataclass
class PromptProgress:
    """The server is still reading the prompt (llama.cpp `return_progress`): `processed` of `total` tokens, of which
    `cache` came from its KV cache without evaluation. Sent only when GenerationOptions.progress asks for it."""

    total: int
    cache: int
    processed: int
    type: Literal["progress"] = "progress"

    @property
    def fraction(self) -> float:
        """Share of the tokens to evaluate (those not cached) that are done."""
        todo = self.total - self.cache
        return 1.0 if todo <= 0 else min(1.0, max(0.0, (self.processed - self.cache) / todo))


@dataclass
class Notice:
    """Something the user should see while waiting, not part of the answer: a rate limit waited out, a model the
    server is loading. Shown as a status line in the thought stream; retries and fallbacks treat it as no answer."""

    text: str
    type: Literal["notice"] = "notice"


StreamEvent = TextDelta | ThinkingDelta | ToolCallEvent | PromptProgress | Notice | Finish
