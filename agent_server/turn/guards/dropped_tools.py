"""Native tool definitions the server dropped without a word, detected from its own prompt token count.

A chat template that cannot render tools (llama.cpp with such a template, some LM Studio and GGUF setups) leaves them
out of the prompt: the model never sees them and the request still succeeds. The server's reported prompt size gives
it away: when it is far below what the tool definitions alone need, they were not in the prompt. The model is then
switched to prompt-based tools (schemas in the system prompt), the user is told once, and the finding is remembered in
the capability cache so a restart starts in the right mode.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING

from ...context import estimate_tools
from ...llm.base import ChatRequest, ModelInfo
from ...llm.capabilities import CapabilityCache
from ...messages import Usage
from .guard import Answer, Guard, Verdict

if TYPE_CHECKING:
    from ..turn import Turn

log = logging.getLogger(__name__)

# The tool definitions must be big enough for the comparison to mean something, and the reported prompt must be under
# half of them: with the tools in it, a prompt is at least the tools' size (estimates are within ~40% of real tokens).
MIN_TOOL_TOKENS = 150
DROPPED_RATIO = 0.5


def tools_were_dropped(request: ChatRequest, usage: Usage) -> tuple[bool, int]:
    """(dropped, the tools' estimated tokens) for one native-tools request and the usage the server reported."""
    if not request.tools or usage.prompt_tokens <= 0:
        return False, 0
    needed = estimate_tools(request.tools)
    return needed >= MIN_TOOL_TOKENS and usage.prompt_tokens < needed * DROPPED_RATIO, needed


class DroppedTools(Guard):
    """A reply without calls to a request whose tools the server dropped: the model switches to prompt-based tools
    and the round is asked again (the reply is not kept: the model never saw the tools)."""

    async def after_reply(self, turn: Turn, answer: Answer) -> Verdict | None:
        if answer.message.tool_calls:
            return None
        note = switch_if_dropped(turn, answer.request, answer.reply.usage)
        return None if note is None else Verdict(note=f"\n\n{note}\n\n")


def switch_if_dropped(turn: Turn, request: ChatRequest, usage: Usage) -> str | None:
    """When the tools were dropped and the model now uses prompt-based tools: the note that tells the user."""
    dropped, needed = tools_were_dropped(request, usage)
    if not dropped:
        return None
    what = (
        f"the server evaluated a {usage.prompt_tokens}-token prompt, but the {len(request.tools)} tool definitions "
        f"alone need about {needed} tokens: the chat template of {turn.model} dropped them"
    )
    if turn.settings.llm.tool_mode == "native":
        if turn.take("dropped_tools_warned", 1):
            log.warning("%s; llm.tool_mode is 'native', so native tools stay on", what)
        return None
    info = turn.context.model_info
    if info is None:
        info = turn.context.model_info = ModelInfo(name=turn.model)
    info.supports_tools = False  # shared with the service: later turns of this process start in prompt mode
    info.details["tools_dropped"] = {"prompt_tokens": usage.prompt_tokens, "tool_tokens": needed}
    cache: CapabilityCache | None = turn.services.get("capability_cache")
    if cache is not None:
        cached = cache.get(turn.provider.base_url, turn.model) or ModelInfo(name=turn.model)
        details = {**cached.details, "tools_dropped": info.details["tools_dropped"]}
        remembered = dataclasses.replace(cached, supports_tools=False, details=details)
        cache.put(turn.provider.base_url, turn.model, remembered)
    log.warning("%s; switching to prompt-based tools", what)
    return (
        f"[agent-server: {what}. Switching {turn.model} to prompt-based tools (the tools are described in the "
        "prompt) and asking again; set llm.tool_mode to override.]"
    )
