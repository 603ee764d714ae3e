"""Compaction at `compact_at` of the window down to `compact_to`: summarize old messages, then evict old turns.

Order of work, cheapest loss first:
1. the fixed system messages and the last `keep_pairs` user/assistant pairs (with the tool traffic between them)
   stay verbatim;
2. older messages are rewritten to short summaries, largest first, until the target is met: user ~50 tokens,
   assistant ~200, tool results by kind (file read: path + what mattered; command: exit code + key lines).
   `summarize(text, target_tokens)` does it when given; when it is missing, raises or is too slow, truncation
   does (and is then used for the rest of the pass), so recovery never depends on another LLM call;
3. still over: the oldest whole turns are evicted into a session summary (files read and modified, commands,
   decisions, open todos) that sits in one system message right after the fixed system prompt;
4. still over: the recent part (the protected pairs and the turn in progress, which is never summarized) is
   shrunk by `shrink.shrink_recent`: older results to outlines or heads, older call arguments to stubs, the
   oldest rounds into the session summary, and as a last resort the latest round cut to fit the window.
Whole turns or rounds are evicted, so an assistant tool call never loses its result, nor a result its call.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..config import ContextConfig
from ..messages import Message, ToolCall
from .budget import answer_reserve
from .call_roles import CallRoles
from .notes import SessionNotes, summary_message
from .pruning import cut
from .shrink import Outliner, Shrink, shrink_recent
from .tokens import CHARS_PER_TOKEN, TokenCounter, estimate_message

Summarizer = Callable[[str, int], Awaitable[str]]
TARGET_TOKENS = {"user": 50, "assistant": 200, "tool": 120, "system": 200}
_KEY_LINE = re.compile(r"error|fail|warning|exception|traceback|passed|exit code|assert", re.IGNORECASE)


@dataclass
class CompactionResult:
    messages: list[Message]
    compacted: bool
    tokens_before: int
    tokens_after: int
    summarized: int = 0  # older messages rewritten as summaries
    fallbacks: int = 0  # of those, how many by truncation (no summarizer, or it failed / timed out)
    evicted: int = 0  # messages removed into the session summary
    truncated_recent: int = 0  # recent tool results shortened (outline or head)
    shrink: Shrink = field(default_factory=Shrink)  # what happened to the recent part and the turn in progress
    summary: str | None = None  # the session summary text (already placed in `messages`)
    errors: list[str] = field(default_factory=list)

    @property
    def notice(self) -> str:
        """One line for the user: what happened to their context."""
        if not self.compacted:
            return ""
        parts = [f"context compacted: {self.tokens_before} → {self.tokens_after} tokens"]
        if self.summarized:
            parts.append(f"{self.summarized} older messages summarized")
        if self.evicted:
            parts.append(f"{self.evicted} messages moved into the session summary")
        if self.truncated_recent:
            parts.append(f"{self.truncated_recent} recent tool results shortened")
        if self.shrink.arguments:
            parts.append(f"long arguments of {self.shrink.arguments} tool calls replaced by stubs")
        if self.shrink.rounds:
            parts.append(f"{self.shrink.rounds} messages of recent rounds moved into the session summary")
        if self.shrink.cut:
            parts.append(f"{self.shrink.cut} messages too big for the window cut")
        return ", ".join(parts)


def protected_start(body: Sequence[Message], keep_pairs: int) -> int:
    """Index where the last `keep_pairs` user/assistant pairs begin (never on a tool result)."""
    seen = 0
    start = len(body)
    for i in range(len(body) - 1, -1, -1):
        if body[i].role in ("user", "assistant"):
            seen += 1
            start = i
            if seen >= keep_pairs * 2:
                break
    while start > 0 and start < len(body) and body[start].role == "tool":
        start -= 1
    return start


def pair_problems(messages: Sequence[Message]) -> list[str]:
    """Tool calls without results and results without calls (by id); empty when the history is consistent."""
    problems: list[str] = []
    open_calls: dict[str, str] = {}
    for i, m in enumerate(messages):
        if m.role == "assistant":
            for call_id, name in open_calls.items():
                problems.append(f"call {call_id} ({name}) has no result before message {i}")
            open_calls = {c.id: c.name for c in m.tool_calls}
        elif m.role == "tool" and m.tool_call_id is not None:
            if m.tool_call_id not in open_calls:
                problems.append(f"result {m.tool_call_id} at message {i} has no call")
            open_calls.pop(m.tool_call_id, None)
        elif m.role == "user" and open_calls:
            problems.extend(f"call {c} has no result before user message {i}" for c in open_calls)
            open_calls = {}
    return problems


def _turns(messages: Sequence[Message]) -> list[list[Message]]:
    """Split at user messages; a leading run without a user message is its own chunk."""
    turns: list[list[Message]] = []
    for m in messages:
        if m.role == "user" or not turns:
            turns.append([])
        turns[-1].append(m)
    return turns


def _truncate_tokens(text: str, tokens: int) -> str:
    limit = max(20, int(tokens * CHARS_PER_TOKEN))
    text = text.strip()
    return text if len(text) <= limit else text[:limit].rstrip() + " …"


def _command_gist(text: str, tokens: int) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    keys = [ln for ln in lines if _KEY_LINE.search(ln)][:6] + lines[-3:]
    seen: list[str] = []
    for ln in keys:
        if ln not in seen:
            seen.append(ln)
    return _truncate_tokens("\n".join(seen), tokens)


def _shorten_args(call: ToolCall) -> ToolCall:
    args: dict[str, Any] = {
        k: (cut(v, 200, "argument") if isinstance(v, str) else v) for k, v in call.arguments.items()
    }
    return replace(call, arguments=args)


class _Rewriter:
    """Summarizes one message at a time; after the first failure it uses truncation for the rest of the pass."""

    def __init__(
        self, summarize: Summarizer | None, timeout_s: float, calls: dict[str, ToolCall], max_chars: int = 1 << 62
    ) -> None:
        self.max_chars = max_chars  # the summarizer's own request must fit the window too
        self.summarize = summarize
        self.deadline = asyncio.get_running_loop().time() + timeout_s
        self.calls = calls
        self.fallbacks = 0
        self.errors: list[str] = []

    def _describe(self, m: Message) -> tuple[str, str]:
        """(header kept verbatim, text to summarize) for one message."""
        if m.role != "tool":
            return "", m.content
        call = self.calls.get(m.tool_call_id or "")
        name = m.tool_name or (call.name if call else "tool")
        args = call.arguments if call else {}
        if isinstance(args.get("path"), str):
            lines = m.content.count("\n") + 1
            return f"[{name} {args['path']}, {lines} lines; summary] ", f"Contents of {args['path']}:\n{m.content}"
        if isinstance(args.get("command"), str):
            return f"[{name} `{args['command'][:120]}`; summary] ", f"Output of `{args['command']}`:\n{m.content}"
        return f"[{name} result; summary] ", m.content

    async def rewrite(self, m: Message) -> Message:
        target = TARGET_TOKENS[m.role]
        header, text = self._describe(m)
        short = ""
        if self.summarize is not None:
            remaining = self.deadline - asyncio.get_running_loop().time()
            try:
                if remaining <= 0:
                    raise TimeoutError("compaction time budget used up")
                if len(text) > self.max_chars:
                    text = text[: self.max_chars] + "\n[… the rest is not shown]"
                short = (await asyncio.wait_for(self.summarize(text, target), remaining)).strip()
                if not short or len(short) >= len(m.content):
                    raise ValueError("summary was empty or no shorter than the original")
            except Exception as exc:  # any failure: truncate instead, and stop asking for this pass
                self.errors.append(f"{type(exc).__name__}: {exc}"[:200])
                self.summarize = None
                short = ""
        if not short:
            self.fallbacks += 1
            is_command = m.role == "tool" and "`" in header
            short = _command_gist(m.content, target) if is_command else _truncate_tokens(m.content, target)
        return replace(
            m,
            content=header + short,
            thinking="",
            tool_calls=[_shorten_args(c) for c in m.tool_calls],
            compacted=True,
        )


async def compact(
    messages: Sequence[Message],
    window: int,
    settings: ContextConfig,
    summarize: Summarizer | None = None,
    *,
    extra_tokens: int = 0,
    counter: TokenCounter | None = None,
    never_compress: Collection[str] = (),
    force: bool = False,
    outliner: Outliner | None = None,
    roles: CallRoles = CallRoles(),
) -> CompactionResult:
    """Compact `messages` (system prompt first, if any) when the prompt passes `compact_at` of `window`.

    `extra_tokens`: what the prompt holds besides the messages (tool definitions). The session summary, if any,
    is a system message marked `summary`, placed right after the leading system messages. `roles`: what the
    calls' tools do (`tools/kinds.py`'s `call_roles`), for the outlines of reads and the session notes.
    """
    if window <= 0:
        raise ValueError(f"context window must be positive, got {window}")
    scale = counter.scale if counter is not None else (lambda n: n)
    # Keyed by id() and holding the message itself, so an id is never reused for another message meanwhile.
    sizes: dict[int, tuple[Message, int]] = {}

    def size(m: Message) -> int:
        entry = sizes.get(id(m))
        if entry is None or entry[0] is not m:
            entry = sizes[id(m)] = (m, estimate_message(m))
        return entry[1]

    def total(msgs: Sequence[Message]) -> int:
        return scale(sum(size(m) for m in msgs)) + extra_tokens

    before = total(messages)
    # The fixed part (system prompt, tool definitions) cannot shrink: aim at a share of what is left above it,
    # and always leave room for the answer.
    fixed = total([m for m in messages if m.role == "system" and not m.summary][:1])
    hard = window - answer_reserve(window, settings.min_remaining)  # the prompt must fit under this
    target = settings.compact_to * window
    trigger = settings.compact_at * window
    recent_goal = target
    if fixed > target - 0.1 * window:  # a small window: 40% would leave no room for the conversation
        target = min(fixed + settings.compact_to * max(0, window - fixed), hard)
        # Compact only when the prompt would not fit, and then well below the limit, so that the next rounds
        # append to an unchanged prefix (the server's prompt cache) instead of compacting every round.
        trigger = hard
        recent_goal = fixed + 0.5 * max(0, target - fixed)
    if not force and before <= trigger:
        return CompactionResult(list(messages), False, before, before)

    notes = SessionNotes()
    head: list[Message] = []
    body: list[Message] = []
    for m in messages:
        if m.summary:
            notes = SessionNotes.from_dict(m.notes)
            if not m.notes and m.content:
                notes.decisions.append(_truncate_tokens(m.content, 150))  # a summary from the store, as text
        elif m.role == "system" and not body:
            head.append(m)
        else:
            body.append(m)
    start = protected_start(body, settings.keep_pairs)
    # The turn in progress is never summarized (its request and fresh results are what the model works on):
    # `shrink_recent` handles it, round by round.
    request = max((i for i, m in enumerate(body) if m.typed_by_user), default=start)
    start = min(start, request)
    old, tail = body[:start], body[start:]
    calls = {c.id: c for m in body for c in m.tool_calls}

    def current() -> list[Message]:
        summary = [summary_message(notes)] if notes.render() else []
        return [*head, *summary, *old, *tail]

    result = CompactionResult([], True, before, before)
    # 2. summarize older messages, largest saving first
    # Half the window for the text to summarize leaves room for the instructions and the summary.
    rewriter = _Rewriter(summarize, settings.compaction_timeout_s, calls, int(window * 0.5 * CHARS_PER_TOKEN))
    candidates = sorted(
        (
            i
            for i, m in enumerate(old)
            if not m.compacted and (m.tool_name or "") not in never_compress and size(m) > TARGET_TOKENS[m.role] * 1.3
        ),
        key=lambda i: -size(old[i]),
    )
    running = total(current())
    for i in candidates:
        if running <= target:
            break
        new = await rewriter.rewrite(old[i])
        running += scale(size(new)) - scale(size(old[i]))
        old[i] = new
        result.summarized += 1
    result.fallbacks, result.errors = rewriter.fallbacks, rewriter.errors

    # 3. evict the oldest whole turns into the session summary
    turns = _turns(old)
    while turns and total(current()) > target:
        evicted = turns.pop(0)
        notes.add(evicted, roles)
        result.evicted += len(evicted)
        old = [m for t in turns for m in t]

    # 4. the recent part: older results, older arguments, oldest rounds, and only then the latest round
    if total(current()) > recent_goal:
        head_part = [*head]

        def prompt_size(recent: list[Message]) -> int:
            summary = [summary_message(notes)] if notes.render() else []
            return total([*head_part, *summary, *old, *recent])

        tail, result.shrink = shrink_recent(
            tail, int(recent_goal), hard, prompt_size, lambda ms: notes.add(ms, roles), never_compress, outliner, roles
        )
        result.truncated_recent = result.shrink.results
        result.evicted += result.shrink.rounds

    result.messages = current()
    result.tokens_after = total(result.messages)
    result.summary = notes.render() or None
    return result


def summarizer_prompt(text: str, target_tokens: int) -> str:
    """A prompt the caller's `summarize` may use: terse, factual, bounded."""
    return (
        f"Compress the following to at most {target_tokens} tokens. Keep what matters for continuing the work: "
        "the question or intent, file paths, names, decisions, errors and results. No preamble.\n\n" + text
    )
