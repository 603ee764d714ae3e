"""Token estimates without a tokenizer: characters / 3.5 plus a per-message overhead, calibrated per model."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..llm.base import ToolSpec
from ..messages import Message

CHARS_PER_TOKEN = 3.5
MESSAGE_OVERHEAD = 4  # role markers and separators of a chat template
TOOL_CALL_OVERHEAD = 8


def estimate_text(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN + 0.999) if text else 0


# A picture sent with a message (context/images.py says why this many).
IMAGE_TOKENS = 768


def estimate_message(message: Message) -> int:
    chars = len(message.content) + len(message.thinking)
    tokens = MESSAGE_OVERHEAD + IMAGE_TOKENS * len(message.images)
    for call in message.tool_calls:
        chars += len(call.name) + len(json.dumps(call.arguments, ensure_ascii=False))
        tokens += TOOL_CALL_OVERHEAD
    return tokens + int(chars / CHARS_PER_TOKEN + 0.999)


def estimate_messages(messages: Iterable[Message]) -> int:
    return sum(estimate_message(m) for m in messages)


def estimate_tools(tools: Sequence[ToolSpec]) -> int:
    """Measured from the JSON the server receives (the OpenAI/Ollama `tools` array), not a fixed allowance."""
    if not tools:
        return 0
    wire = [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]
    return estimate_text(json.dumps(wire, ensure_ascii=False))


@dataclass
class TokenCounter:
    """Estimates scaled by what the server reports for this model (an EMA of reported / estimated)."""

    ratio: float = 1.0
    alpha: float = 0.3
    observations: int = 0
    min_ratio: float = 0.5
    max_ratio: float = 3.0

    def observe(self, estimated_prompt: int, reported_prompt_tokens: int) -> None:
        """Feed one round's estimate and the server's prompt token count (ignored when either is unknown)."""
        if estimated_prompt <= 0 or reported_prompt_tokens <= 0:
            return
        sample = min(self.max_ratio, max(self.min_ratio, reported_prompt_tokens / estimated_prompt))
        # The first sample replaces the prior outright: the prior is a guess, the sample is a measurement.
        self.ratio = sample if self.observations == 0 else self.alpha * sample + (1 - self.alpha) * self.ratio
        self.observations += 1

    def scale(self, estimate: int) -> int:
        return int(estimate * self.ratio + 0.5)

    def count(self, messages: Iterable[Message], tools: Sequence[ToolSpec] = ()) -> int:
        return self.scale(estimate_messages(messages) + estimate_tools(tools))
