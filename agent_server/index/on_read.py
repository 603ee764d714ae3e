"""What happens to files the agent read (seed 000's GraphRAG loop), per `index.on_read`.

After a turn, every file `read_file` returned is handled once: `full` indexes it and keeps an outline of its
symbols (with line numbers) in the history instead of the whole text; `metadata` keeps only its size, language
and top-level names; `ask` lets the user choose by `window/showMessageRequest`, including keeping just one of
the file's symbols (a line range). Later rounds then carry the short form, so big files stop filling the
window; the transcript the user sees is unchanged. The turn's answer is never delayed: this runs after it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .. import acp
from ..client_contract import AgentClient
from ..errors import SandboxError
from ..index.chunker import Chunk, chunk_text
from ..messages import Message
from ..tools import reading
from ..tools.sandbox import read_regular

log = logging.getLogger(__name__)

FULL, RANGE, METADATA, KEEP = "Full indexing", "Keep a line range", "Metadata only", "Keep as is"
MIN_LINES = 40  # smaller files cost little: leave them alone
MAX_RANGE_CHOICES = 6


@dataclass
class ReadFile:
    """One successful read_file result in the history."""

    index: int  # position of the tool message in the history
    path: Path
    rel: str
    text: str


def turn_start(history: list[Message], since: int) -> int:
    """Where the turn that holds `history[since]` began: the user's own message at or before it (a nudge, which the
    user did not type, begins no turn)."""
    start = min(since, len(history) - 1)
    while start > 0 and not history[start].typed_by_user:
        start -= 1
    return max(start, 0)


def files_read(history: list[Message], roots: list[Path], since: int) -> list[ReadFile]:
    """Successful read_file results from the turn that holds history[since], newest last, one per path (the latest
    read wins)."""
    calls = {c.id: c for m in history for c in m.tool_calls}
    found: dict[str, ReadFile] = {}
    for i in range(turn_start(history, since), len(history)):
        m = history[i]
        if m.role != "tool" or m.tool_name != reading.ReadFile.name or m.is_error or m.on_read is not None:
            continue
        call = calls.get(m.tool_call_id or "")
        rel = str(call.arguments.get("path", "")) if call else ""
        if not rel:
            continue
        path = (roots[0] / rel).resolve()
        try:
            text = read_regular(path, 4_000_000).decode("utf-8")  # never a FIFO or a device
        except (OSError, UnicodeDecodeError, SandboxError):
            continue
        if len(text.splitlines()) < MIN_LINES:
            continue
        found[rel] = ReadFile(i, path, rel, text)
    return list(found.values())


def outline(rel: str, text: str, chunks: list[Chunk]) -> str:
    lines = text.splitlines()
    how = f"{reading.ReadFile.name} with start_line/end_line for details"
    parts = [f"[{rel}: indexed; {len(lines)} lines. Outline ({how}):]"]
    for chunk in chunks:
        if chunk.symbol:
            parts.append(f"- {chunk.kind} {chunk.symbol}: lines {chunk.start_line}-{chunk.end_line}")
    if len(parts) == 1:
        parts.append(f"- first line: {lines[0][:120] if lines else ''}")
    return "\n".join(parts)


def metadata(rel: str, text: str, chunks: list[Chunk], language: str | None) -> str:
    names = [c.symbol for c in chunks if c.symbol and "." not in c.symbol][:20]
    return (
        f"[{rel}: {len(text.splitlines())} lines, {len(text.encode())} bytes, language {language or 'unknown'}; "
        f"top-level names: {', '.join(names) or 'none'}. Its content was dropped from the conversation: "
        "read it again if you need it.]"
    )


def line_range(rel: str, text: str, chunk: Chunk) -> str:
    body = text.splitlines()[chunk.start_line - 1 : chunk.end_line]
    numbered = "\n".join(f"{chunk.start_line + i}\t{line}" for i, line in enumerate(body))
    return f"[{rel}: only lines {chunk.start_line}-{chunk.end_line} ({chunk.symbol}) kept]\n{numbered}"


class OnRead:
    """Runs the on-read flow for one session after each turn."""

    def __init__(self, mode: str, client: AgentClient, index: Any | None) -> None:
        self.mode = mode
        self.client = client
        self.index = index  # WorkspaceIndex or None

    async def process(self, session_id: str, history: list[Message], roots: list[Path], since: int) -> bool:
        """Rewrite the history in place; True if anything changed (the caller persists it)."""
        if self.mode == "off":
            return False
        changed = False
        for item in files_read(history, roots, since):
            choice = await self._choose(item)
            if choice is None or choice == KEEP:
                continue
            replacement = await self._apply(choice, item)
            if replacement is None:
                continue
            old = history[item.index]
            history[item.index] = replace(old, content=replacement, on_read=choice)
            changed = True
            await self._show(session_id, item, choice, replacement)
        return changed

    async def _choose(self, item: ReadFile) -> str | None:
        if self.mode == "full":
            return FULL
        if self.mode == "metadata":
            return METADATA
        lines = len(item.text.splitlines())
        return await self.client.show_message_request(
            f"The agent read {item.rel} ({lines} lines). How should it stay in the conversation?",
            [FULL, RANGE, METADATA, KEEP],
        )

    async def _apply(self, choice: str, item: ReadFile) -> str | None:
        chunked = chunk_text(item.rel, item.text)
        if choice == FULL:
            if self.index is not None:
                await self.index.update_file(item.path, item.text)
            return outline(item.rel, item.text, chunked.chunks)
        if choice == METADATA:
            return metadata(item.rel, item.text, chunked.chunks, chunked.language)
        if choice == RANGE:
            named = [c for c in chunked.chunks if c.symbol][:MAX_RANGE_CHOICES]
            labels = {f"{c.symbol} (lines {c.start_line}-{c.end_line})": c for c in named}
            picked = await self.client.show_message_request(f"Which part of {item.rel} should stay?", list(labels))
            chunk = labels.get(picked or "")
            return line_range(item.rel, item.text, chunk) if chunk is not None else None
        return None

    async def _show(self, session_id: str, item: ReadFile, choice: str, replacement: str) -> None:
        """The user sees what happened to the file, as a tool-like card."""
        call_id = f"on_read_{abs(hash((item.rel, item.index))) % 10**8}"
        await self.client.session_update(
            session_id,
            acp.ToolCallStart(
                tool_call_id=call_id,
                title=f"{choice}: {item.rel}",
                kind="read",
                status="completed",
                locations=[acp.ToolCallLocation(path=str(item.path))],
                content=[acp.Content(content=acp.TextContent(text=replacement))],
            ),
        )
