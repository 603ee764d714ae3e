"""After a nudge to use a tool (a deflection, an unread file, a call of something that is not a tool), the next request
requires a tool call (`tool_choice: "required"`; llama.cpp enforces it with a grammar): a small model that answered in
prose twice usually does so a third time unless the server insists. The nudging guard asks for it with its verdict's
`require_tool`; the request after it insists, once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...llm.base import ChatRequest
from .guard import Guard

if TYPE_CHECKING:
    from ..turn import Turn


class InsistOnTool(Guard):
    async def before_request(self, turn: Turn, request: ChatRequest) -> None:
        if turn.require_tool and request.tools:  # a request without tool definitions cannot require one
            request.options.tool_choice = "required"
        turn.require_tool = False
