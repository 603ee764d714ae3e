"""The context step of each round: pick the tools, prune and compact the history, fit it into the window.

The fixed system prompt stays byte-identical across rounds (the server's KV cache survives); a session summary,
when there is one, is a separate system message right after it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from .. import acp
from ..config import Settings
from ..context import (
    TokenCounter,
    answer_reserve,
    check_budget,
    choose_num_ctx,
    compact,
    context_window,
    estimate_message,
    estimate_messages,
    estimate_tools,
    is_overflow,
    prune_tool_results,
    summarizer_prompt,
)
from ..context.images import can_see, images_for_request
from ..context.shrink import Outliner
from ..context.tokens import CHARS_PER_TOKEN
from ..errors import ContextOverflowError
from ..llm.base import ChatRequest, GenerationOptions, ModelInfo, Provider, ToolSpec
from ..llm.prompt_tool_mode import render_tool_prompt
from ..llm.server_facts import is_llamacpp
from ..messages import Message, Usage
from ..tools.base import PAGE_CHARS, Tool
from ..tools.kinds import PLANS, call_roles
from ..tools.lean import lean_specs
from ..tools.planning import TaskCompletion
from . import prompts
from .edit_formats.registry import of as edit_format
from .live_session import PrefixChoice
from .model_call import text_of

if TYPE_CHECKING:
    from .turn import Turn

log = logging.getLogger(__name__)
FEW_TOOLS = 6
# When the system prompt and every tool definition would take more than this share of what the window holds
# besides the answer, the turn starts with fewer tools and the short system prompt (measured each turn).
FIXED_SHARE = 0.4
# A tool result may take this share of the room left after the fixed part: a read returns a page that fits,
# and the next round's compaction has room to work.
PAGE_SHARE = 0.33
MIN_PAGE_CHARS = 600
_counters: dict[str, TokenCounter] = {}  # per model: calibration outlives sessions


class ContextStep:
    def __init__(
        self,
        settings: Settings,
        system_prompt: str,
        model_info: ModelInfo | None,
        provider_name: str,
        persist: Callable[[list[Message]], Awaitable[None]],
        outliner: Outliner | None = None,
    ) -> None:
        self.settings = settings
        self.outliner = outliner  # older reads shrink to their outline (the index's chunker, given by the session)
        self.system_prompt = system_prompt
        self.model_info = model_info
        self.provider_name = provider_name
        self.persist = persist
        self.window = context_window(model_info, settings.llm.context_length)
        model = model_info.name if model_info else ""
        self.counter = _counters.setdefault(model, TokenCounter())
        self.force_compaction = False
        self._estimated = 0
        self._num_ctx: int | None = None
        self._turn: Turn | None = None
        self.tight: bool | None = None  # decided at the first round: few tools and the short system prompt
        self.page_chars: int | None = None  # the tools' page budget for this round
        self.system_extra = ""  # the agent profile's prompt and the rules files, kept in the short prompt too
        self.meter_meta: dict[str, object] | None = None  # what the context meter shows beside used/size (rules)
        self.explicit_tools: set[str] = set()  # the tools the profile names: the lean prompt keeps them
        self.lean = use_lean(settings, self.window, provider_name, model_info)

    @property
    def prompt_tools(self) -> bool:
        """Models without native tool calling get the tools described in the prompt."""
        mode = self.settings.llm.tool_mode
        if mode != "auto":
            return mode == "prompt"
        return self.model_info is not None and self.model_info.supports_tools is False

    def _fixed(self, system: str, specs: list[ToolSpec]) -> int:
        """The part of every prompt that compaction cannot shrink: the system prompt and the tool definitions."""
        tools = 0 if self.prompt_tools else estimate_tools(specs)
        return self.counter.scale(estimate_message(Message(role="system", content=system))) + tools

    def _system(self, turn: Turn, specs: list[ToolSpec]) -> str:
        system = self.system_prompt
        if self.lean and self.settings.agent.system_prompt is None:
            system = prompts.system_prompt(turn.session.cwd, self.settings.agent.profile, None, lean=True)
            system += self.system_extra
        elif self.tight and self.settings.agent.system_prompt is None:
            system = prompts.system_prompt(turn.session.cwd, self.settings.agent.profile, None, short=True)
            system += self.system_extra
        if self.prompt_tools and specs:
            system += "\n\n" + render_tool_prompt(specs)
        return system + edit_format(self.settings.agent.edit_format).instructions

    async def prepare(self, turn: Turn) -> tuple[list[Message], list[ToolSpec], int | None]:
        self._turn = turn
        if turn.session.window and turn.session.window < self.window:
            self.window = turn.session.window
        cfg = self.settings.context
        reserve = answer_reserve(self.window, cfg.min_remaining)
        specs = await self._prefix_tools(turn, reserve)
        system = self._system(turn, specs)
        never = {t for t in turn.tools.names() if getattr(turn.tools.get(t), "never_compress", False)}
        history = prune_tool_results(turn.session.history, cfg.keep_full_turns, cfg.old_result_chars, never)
        # Pictures: the latest prompt's only, and none to a model that cannot see (context/images.py).
        history = images_for_request(history, can_see(self.model_info, self.settings.llm.vision))
        messages = [Message(role="system", content=system), *history]
        extra = 0 if self.prompt_tools else estimate_tools(specs)
        messages = await self._fit(turn, messages, extra, never, force=self.force_compaction)
        self.force_compaction = False
        self._estimated = self.counter.scale(estimate_messages(messages)) + extra
        over = not check_budget(self._estimated, self.window, cfg.min_remaining).ok
        if over and len(specs) > FEW_TOOLS and self.settings.agent.reduced_tools:
            # Small windows cannot afford every tool definition: offer only the most relevant few (from now on).
            self.tight = True
            specs = await self.select_tools(turn, FEW_TOOLS)
            self._remember(turn, specs)
            extra = 0 if self.prompt_tools else estimate_tools(specs)
            messages[0] = Message(role="system", content=self._system(turn, specs))
            self._estimated = self.counter.scale(estimate_messages(messages)) + extra
        if not check_budget(self._estimated, self.window, cfg.min_remaining).ok:
            # Under the 70% trigger but too close to the edge to leave room for an answer: compact now. This
            # shrinks the turn in progress too, down to cutting a message bigger than the window, so a session
            # never stays stuck over its window.
            messages = await self._fit(turn, messages, extra, never, force=True)
            self._estimated = self.counter.scale(estimate_messages(messages)) + extra
        if not check_budget(self._estimated, self.window, cfg.min_remaining).ok:
            raise ContextOverflowError(
                f"the conversation needs {self._estimated} tokens but the model's window is {self.window} "
                f"(keeping {reserve} free for the answer); the system prompt and tool definitions alone take "
                f"{self._fixed(system, specs)}: raise llm.context_length, or use fewer tools or a shorter "
                "agent.system_prompt",
                self._estimated,
                self.window,
            )
        # The tools' page budget: a share of what the window holds besides the fixed part and the answer.
        room = max(0, self.window - reserve - self._fixed(system, specs))
        self.page_chars = max(MIN_PAGE_CHARS, int(PAGE_SHARE * room * CHARS_PER_TOKEN / self.counter.ratio))
        PAGE_CHARS.set(self.page_chars)
        if self.provider_name == "ollama":
            # Ollama silently truncates at its small default num_ctx: always send one, from a fixed ladder.
            wanted = min(self._estimated + reserve, self.window)
            self._num_ctx = choose_num_ctx(self.window, wanted, turn.session.num_ctx)
            turn.session.num_ctx = self._num_ctx
        if self.prompt_tools:
            messages = as_plain_chat(messages)
            specs = []
        else:
            messages = edit_format(self.settings.agent.edit_format).replay(messages)
        return messages, specs, self._num_ctx

    async def _prefix_tools(self, turn: Turn, reserve: int) -> list[ToolSpec]:
        """The session's tools: chosen at its first round (measured against the window) and then kept, so every
        request of the session starts with the same bytes whatever the user asks next."""
        if edit_format(self.settings.agent.edit_format).edits_in_text:
            return []  # the model edits in its answer's text, with no tool definitions
        choice = turn.session.prefix
        if choice is not None and choice.offered == frozenset(turn.tools.names()) and choice.lean == self.lean:
            self.tight = choice.tight
            named = {s.name: s for s in self._all_specs(turn)}
            return [named[n] for n in choice.tools if n in named]
        self.tight = False
        specs = await self.select_tools(turn)
        fixed = self._fixed(self._system(turn, specs), specs)  # tools in the prompt count in prompt mode too
        reduce = self.settings.agent.reduced_tools
        self.tight = reduce and len(specs) > FEW_TOOLS and fixed > FIXED_SHARE * (self.window - reserve)
        if self.tight:
            specs = await self.select_tools(turn, FEW_TOOLS)
        self._remember(turn, specs)
        return specs

    def _remember(self, turn: Turn, specs: list[ToolSpec]) -> None:
        offered = frozenset(turn.tools.names())
        turn.session.prefix = PrefixChoice(offered, self.lean, bool(self.tight), tuple(s.name for s in specs))

    def _all_specs(self, turn: Turn) -> list[ToolSpec]:
        if self.lean:
            keep = self.explicit_tools | ({TaskCompletion.name} if self.settings.agent.profile == "task" else set())
            return lean_specs(turn.tools, keep)
        return turn.tools.specs()

    async def _fit(
        self, turn: Turn, messages: list[Message], extra: int, never: set[str], force: bool
    ) -> list[Message]:
        """Compact when over the trigger (or when forced), persist the result and tell the client."""
        result = await compact(
            messages,
            self.window,
            self.settings.context,
            self._summarizer(turn),
            extra_tokens=extra,
            counter=self.counter,
            never_compress=never,
            force=force,
            outliner=self.outliner,
            roles=call_roles(_tools(turn)),
        )
        if not result.compacted:
            return messages
        turn.session.history = list(result.messages[1:])
        await self.persist(turn.session.history)
        note = f"\n[agent-server: {result.notice}]\n"
        compaction = {
            "agentServer": {"compaction": {"notice": result.notice}}
        }  # machine-readable beside the note (headless runs)
        await turn.relay.send(acp.AgentThoughtChunk(content=acp.TextContent(text=note), _meta=compaction))
        return list(result.messages)

    def shrink_window(self, n_ctx: int | None) -> None:
        """The server told us its real window (its overflow error names it): believe it, and compact."""
        if n_ctx and n_ctx < self.window:
            self.window = n_ctx
            if self._turn is not None:
                self._turn.session.window = n_ctx  # later turns start from the truth
        self.force_compaction = True

    async def select_tools(self, turn: Turn, limit: int | None = None) -> list[ToolSpec]:
        """All tools, or the most relevant `tools.max_per_request` of them (loop-control tools always stay)."""
        if edit_format(self.settings.agent.edit_format).edits_in_text:
            return []  # the model edits in its answer's text, with no tool definitions
        specs = self._all_specs(turn)
        limit = limit or self.settings.tools.max_per_request
        if len(specs) <= limit:
            return specs
        from ..tools.prefilter import ToolPrefilter

        # The session's first request, not the latest: the choice is the session's (the prompt prefix stays cached),
        # and a restarted agent-server makes the same one for a resumed session (its saved slot still matches).
        query = next((m.content for m in turn.session.history if m.typed_by_user), "")
        steering = _steering(turn)
        keep = steering if limit <= FEW_TOOLS else steering | _builtin_names(turn)
        prefilter = ToolPrefilter(limit, always_keep=keep)
        return await prefilter.select(query, specs)

    def truncated(self, usage: Usage) -> bool:
        """The server reported a prompt at the num_ctx limit while ours was bigger: it silently cut the start."""
        return is_overflow(usage.prompt_tokens, self._num_ctx, self._estimated)

    async def observe(self, request: ChatRequest, usage: Usage) -> None:
        if usage.prompt_tokens:
            self.counter.observe(
                estimate_messages(request.messages) + estimate_tools(request.tools), usage.prompt_tokens
            )
        if self._turn is None:
            return
        used = usage.prompt_tokens + usage.completion_tokens if usage.prompt_tokens else self._estimated
        update = acp.UsageUpdate(used=used, size=self.window)
        # What this call cost, as the server counted it (0 where it does not say): headless runs sum these.
        call = {
            "promptTokens": usage.prompt_tokens,
            "completionTokens": usage.completion_tokens,
            "cachedTokens": usage.cached_tokens,
        }
        ours = (self.meter_meta or {}).get("agentServer")
        update.meta = {
            **(self.meter_meta or {}),
            "agentServer": {**(ours if isinstance(ours, dict) else {}), "call": call},
        }
        await self._turn.relay.send(update)

    def _summarizer(self, turn: Turn) -> Callable[[str, int], Awaitable[str]]:
        provider, model = turn.provider, turn.model

        async def summarize(text: str, target_tokens: int) -> str:
            return await summarize_with(
                provider, model, text, target_tokens, self.settings.context.compaction_timeout_s
            )

        return summarize


def use_lean(settings: Settings, window: int, provider_name: str, model_info: ModelInfo | None) -> bool:
    """agent.lean_prompt: `auto` is on for small windows and local servers that read prompts slowly (Ollama,
    llama.cpp, whose `/props` the capability probe read), where the fixed prompt is most of the wait."""
    mode = settings.agent.lean_prompt
    if mode != "auto":
        return mode == "on"
    return window <= settings.agent.lean_window or provider_name == "ollama" or is_llamacpp(model_info)


def _tools(turn: Turn) -> list[Tool]:
    return [t for t in map(turn.tools.get, turn.tools.names()) if t is not None]


def _steering(turn: Turn) -> set[str]:
    """The tools the model ends or plans its turn with (ask_question, task_completion, update_plan): kept however few
    tools a request offers."""
    return {t.name for t in _tools(turn) if t.loop_breaking or t.kind == PLANS}


def _builtin_names(turn: Turn) -> set[str]:
    return {n for n in turn.tools.names() if getattr(turn.tools.get(n), "source", "builtin") == "builtin"}


async def summarize_with(provider: Provider, model: str, text: str, target_tokens: int, timeout_s: float) -> str:
    """One low-temperature call that condenses `text`; the caller falls back to truncation if it fails."""
    request = ChatRequest(
        model=model,
        messages=[Message(role="user", content=summarizer_prompt(text, target_tokens))],
        options=GenerationOptions(temperature=0.1, max_tokens=max(64, target_tokens * 2), think=False),
        purpose="summary",
    )
    return (await asyncio.wait_for(text_of(provider, request), timeout_s)).strip()


def as_plain_chat(messages: list[Message]) -> list[Message]:
    """For prompt tool mode: tool calls become the text the model would have written, results become user turns."""
    out: list[Message] = []
    for m in messages:
        if m.role == "assistant" and m.tool_calls:
            calls = "\n".join(
                f"<tool_call>\n{json.dumps({'name': c.name, 'arguments': c.arguments})}\n</tool_call>"
                for c in m.tool_calls
            )
            text = m.content if "<tool_call>" in m.content else (m.content + "\n" + calls).strip()
            out.append(replace(m, content=text, tool_calls=[]))
        elif m.role == "tool":
            out.append(Message(role="user", content=f"Result of {m.tool_name}:\n{m.content}"))
        else:
            out.append(m)
    return out
