"""Shrinking the recent part of the history (the protected pairs and the turn in progress) when it overflows.

Compaction (`compaction.py`) summarizes and evicts older turns; this module handles what it keeps verbatim,
which in a small window is most of the prompt. Order of work, cheapest loss first, each step oldest first and
only until the goal is met:

1. older tool results become a short form: a file read becomes its outline (symbols with line ranges, from the
   index's chunker, passed in as an `Outliner`) or its first lines; any other result its head; each says how to
   get the rest back;
2. older tool-call arguments longer than `ARG_CHARS` become a stub naming their size and hash (a 100 KB
   `write_file` content becomes "[content: 102400 characters, 2000 lines, sha256 1a2b…; already written]");
3. the oldest rounds (an assistant message and its results) of earlier turns, then of the turn in progress, are
   evicted into the session notes; the user's request of the turn stays;
4. the latest round, whose results the model has not seen yet, is cut to fit the hard limit (the window minus
   the answer's reserve), and so is any single message bigger than that, a huge user message included.

The store's transcript never changes: only the model-facing history is rewritten. The output is deterministic,
and the caller persists it, so the shortened prefix stays byte-identical in later rounds.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..messages import Message, ToolCall
from .call_roles import CallRoles
from .tokens import CHARS_PER_TOKEN

HEAD_CHARS = 240  # what is left of an older tool result
ARG_CHARS = 300  # longer string arguments of older calls become stubs
OUTLINE_ENTRIES = 12
_READ_HEADER = re.compile(r"^(?P<rel>.+?) \(lines (?P<first>\d+)-(?P<last>\d+)(?: of (?P<total>\d+))?[^)]*\)$")
_NUMBERED = re.compile(r"^\d+\t")


class OutlineChunk(Protocol):
    """One symbol's lines in a file (1-based, inclusive), as the index's chunker finds them."""

    @property
    def start_line(self) -> int: ...
    @property
    def end_line(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def symbol(self) -> str | None: ...


Outliner = Callable[[str, str], Sequence[OutlineChunk]]
"""A file's chunks from its path and text: the index's chunker (`index.chunker.outline_chunks`), passed in from the
session floor because the index lives floors above this one; None: older reads keep their head instead."""


@dataclass
class Shrink:
    """What `shrink_recent` did, for the compaction notice."""

    results: int = 0  # older tool results shortened
    arguments: int = 0  # tool calls whose long arguments became stubs
    rounds: int = 0  # messages evicted from the recent part into the session notes
    cut: int = 0  # messages of the latest round (or oversized ones) cut to fit


def _tokens_to_chars(tokens: int) -> int:
    return max(80, int(tokens * CHARS_PER_TOKEN))


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:12]


def _file_outline(rel: str, first: int, body: list[str], outliner: Outliner | None) -> list[str]:
    """Symbols of the lines the model read, with their line numbers in the file; empty when none are found."""
    if outliner is None:
        return []
    try:
        chunks = outliner(rel, "\n".join(body))
    except Exception:  # an unparsable file: fall back to its head
        return []
    out = []
    for chunk in chunks:
        if chunk.symbol:
            start, end = chunk.start_line + first - 1, chunk.end_line + first - 1
            out.append(f"- {chunk.kind} {chunk.symbol}: lines {start}-{end}")
    if len(out) > OUTLINE_ENTRIES:
        out = [*out[:OUTLINE_ENTRIES], f"- … {len(out) - OUTLINE_ENTRIES} more symbols"]
    return out


def compress_result(
    message: Message,
    call: ToolCall | None,
    budget_chars: int = HEAD_CHARS,
    outliner: Outliner | None = None,
    roles: CallRoles = CallRoles(),
) -> Message:
    """The short form of one tool result, saying what was dropped and how to get it back."""
    text = message.content
    name = message.tool_name or (call.name if call else "tool")
    args = call.arguments if call else {}
    lines = text.splitlines()
    header = _READ_HEADER.match(lines[0]) if lines and name in roles.reads_files else None
    if header is not None:
        rel, first, last = header["rel"], int(header["first"]), int(header["last"])
        body = [_NUMBERED.sub("", ln, count=1) for ln in lines[1:]]
        outline = _file_outline(rel, first, body, outliner)
        lead = (
            f"[agent-server: to fit the context window, this read of {rel} (lines {first}-{last}"
            f"{' of ' + header['total'] if header['total'] else ''}) was replaced by "
        )
        how = f" Call {name} with path={rel!r} and start_line/end_line to see lines again.]"
        if outline:
            short = lead + "its outline." + how + "\n" + "\n".join(outline)
        else:
            head = "\n".join(lines[1:4])[:budget_chars]
            short = lead + "its first lines." + how + "\n" + head
    else:
        if isinstance(args.get("command"), str):
            how = "Run the command again (narrowed with grep, head or tail) to see more."
        elif isinstance(args.get("path"), str):
            how = f"Call {name} again (on a narrower range) to see more."
        else:
            how = f"Call {name} again, with narrower arguments, to see more."
        keep = max(0, budget_chars)
        short = (
            f"{text[:keep].rstrip()}\n[agent-server: the rest of this {name} result ({len(text) - keep} characters) "
            f"was dropped to fit the context window. {how}]"
        )
    if len(short) >= len(text):
        return message
    return replace(message, content=short, shrunk=True)


def _arg_stub(key: str, value: str) -> str:
    lines = value.count("\n") + 1
    return (
        f"[agent-server: {key} of {len(value)} characters, {lines} lines, sha256 {_sha(value)}; "
        "sent in full when this call was made, shortened here to fit the context window]"
    )


def stub_arguments(message: Message, limit: int = ARG_CHARS) -> Message:
    """Long string arguments of the message's tool calls become stubs (size, lines, hash); the rest stays."""
    changed = False
    calls = []
    for call in message.tool_calls:
        args: dict[str, Any] = {}
        for key, value in call.arguments.items():
            if isinstance(value, str) and len(value) > limit:
                args[key] = _arg_stub(key, value)
                changed = True
            else:
                args[key] = value
        calls.append(replace(call, arguments=args))
    if not changed:
        return message
    return replace(message, tool_calls=calls, shrunk=True)


def cut_message(message: Message, budget_chars: int) -> Message:
    """One message cut to `budget_chars` (its head), with a marker; for messages that cannot fit whole."""
    if len(message.content) <= budget_chars and not message.thinking:
        return message
    text = message.content
    keep = max(0, budget_chars)
    if len(text) > keep:
        what = "result" if message.role == "tool" else "message"
        text = (
            f"{text[:keep].rstrip()}\n[agent-server: this {what} was {len(message.content)} characters, too big for "
            f"the context window; only its first {keep} are kept here. Ask for a smaller part.]"
        )
    return replace(message, content=text, thinking="", shrunk=True)


def rounds_of(messages: Sequence[Message]) -> list[list[Message]]:
    """Split at user and assistant messages: each chunk is a user message, or an assistant message + its results."""
    out: list[list[Message]] = []
    for m in messages:
        if m.role in ("user", "assistant", "system") or not out:
            out.append([])
        out[-1].append(m)
    return out


def shrink_recent(
    recent: list[Message],
    goal: int,
    hard: int,
    prompt_size: Callable[[list[Message]], int],
    evict: Callable[[list[Message]], None],
    never_compress: Collection[str] = (),
    outliner: Outliner | None = None,
    roles: CallRoles = CallRoles(),
) -> tuple[list[Message], Shrink]:
    """Shrink `recent` until `prompt_size(recent)` (the whole prompt around it) is under `goal`, never losing the
    request of the turn in progress; the latest round is only touched to get under `hard`.

    `evict(messages)` receives the whole rounds removed (for the session notes, which `prompt_size` counts).
    """
    stats = Shrink()
    msgs = list(recent)
    calls = {c.id: c for m in msgs for c in m.tool_calls}

    def size() -> int:
        return prompt_size(msgs)

    last_answer = max((i for i, m in enumerate(msgs) if m.role == "assistant"), default=-1)
    last_user = max((i for i, m in enumerate(msgs) if m.role == "user"), default=-1)
    # The latest round: the last assistant message and its results (or a trailing user message, e.g. a nudge).
    older = range(0, max(0, max(last_answer, last_user)))

    # 1. older tool results
    for i in older:
        if size() <= goal:
            break
        m = msgs[i]
        if m.role == "tool" and not m.shrunk and (m.tool_name or "") not in never_compress:
            new = compress_result(m, calls.get(m.tool_call_id or ""), outliner=outliner, roles=roles)
            if new is not m:
                msgs[i] = new
                stats.results += 1
    # 2. older tool-call arguments
    for i in older:
        if size() <= goal:
            break
        if msgs[i].role == "assistant" and msgs[i].tool_calls:
            new = stub_arguments(msgs[i])
            if new is not msgs[i]:
                msgs[i] = new
                stats.arguments += 1
    # 3. evict the oldest rounds: earlier turns first (each whole, so the history never starts with an answer, which
    # strict chat templates reject), then the rounds of the turn in progress after its request; never that request
    # (the model would lose the task) and never the latest round.
    while size() > goal:
        chunks = rounds_of(msgs)
        starts = [i for i, ch in enumerate(chunks) if ch[0].typed_by_user]
        request = starts[-1] if starts else -1
        if request > 0:
            first_turn_end = next((i for i in starts if i > 0), request)
            gone = [m for ch in chunks[:first_turn_end] for m in ch]
            del chunks[:first_turn_end]
        else:
            victims = [i for i in range(len(chunks) - 1) if i != request and chunks[i][0].role != "system"]
            if not victims:
                break
            gone = chunks.pop(victims[0])
        evict(gone)
        stats.rounds += len(gone)
        msgs = [m for ch in chunks for m in ch]
    # 4. still over the hard limit: the latest round's arguments, then the biggest messages, cut to fit
    if size() > hard:
        for i, m in enumerate(msgs):
            if m.role == "assistant" and m.tool_calls:
                new = stub_arguments(m)
                if new is not m:
                    msgs[i] = new
                    stats.cut += 1
        for i in sorted(range(len(msgs)), key=lambda i: -len(msgs[i].content)):
            over = size() - hard
            if over <= 0:
                break
            m = msgs[i]
            if m.role == "system" or len(m.content) <= 400:
                continue
            msgs[i] = cut_message(m, max(200, len(m.content) - _tokens_to_chars(over) - 200))
            stats.cut += 1
    return msgs, stats
