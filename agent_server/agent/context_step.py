"""The context step of each round: build the messages and tools to send, and keep them inside the window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import acp
from ..llm.base import ChatRequest, ModelInfo, ToolSpec
from ..messages import Message, Usage
from . import prompts

if TYPE_CHECKING:
    from .loop import Turn


class ContextStep:
    def __init__(self, turn_system_prompt: str, model_info: ModelInfo | None) -> None:
        self.system_prompt = turn_system_prompt
        self.model_info = model_info
        self._turn: Turn | None = None

    @property
    def window(self) -> int | None:
        return self.model_info.context_length if self.model_info else None

    async def prepare(self, turn: Turn) -> tuple[list[Message], list[ToolSpec], int | None]:
        self._turn = turn
        messages = [Message(role="system", content=self.system_prompt)]
        if turn.session.summary:
            messages.append(
                Message(role="system", content=f"Summary of the earlier conversation:\n{turn.session.summary}")
            )
        messages.extend(turn.session.history)
        specs: list[ToolSpec] = turn.tools.specs()
        return messages, specs, turn.session.num_ctx

    async def observe(self, request: ChatRequest, usage: Usage) -> None:
        if self._turn is None or not self.window or not usage.prompt_tokens:
            return
        used = usage.prompt_tokens + usage.completion_tokens
        await self._turn.relay.send(acp.UsageUpdate(used=used, size=self.window))


def build_system_prompt(turn_root: str, profile: str, custom: str | None) -> str:
    from pathlib import Path

    return prompts.system_prompt(Path(turn_root), profile, custom)
