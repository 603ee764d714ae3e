"""A live session: its workspace, its history, and the turn currently running in it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..messages import Message
from ..tools.permissions import InMemoryDecisionStore
from .edit_blocks import Shown


@dataclass(frozen=True)
class PrefixChoice:
    """The tools (and prompt variant) a session's requests start with. Chosen at its first round and kept, so the
    prompt prefix stays byte-identical across turns and the server's KV cache survives; chosen again only when the
    offered tools change (another mode, MCP tools arriving)."""

    offered: frozenset[str]  # the registry's tool names when it was chosen
    lean: bool
    tight: bool
    tools: tuple[str, ...]


@dataclass
class Session:
    id: str
    cwd: Path
    roots: list[Path]
    history: list[Message] = field(default_factory=list)  # model-facing history (may be compacted)
    title: str | None = None
    num_ctx: int | None = None  # sticky per session: changing it reloads the model
    window: int | None = None  # the server's real window, once an overflow told us (smaller than advertised)
    mcp: Any = None  # McpManager for servers given by the client for this session
    turn: asyncio.Task[Any] | None = None
    after_turn: asyncio.Task[Any] | None = None  # the on-read flow of the previous turn, if still running
    store_version: tuple[int, int] | None = None  # what this process last saw in the store (see Store.version)
    mode: str = "code"  # the agent profile the session runs in (agent/modes.py)
    shown_files: list[Shown] = field(default_factory=list)  # files shown in the prompt (edit_format "files")
    files_edit: bool = True  # "files" format: this turn asks for a change (else a question: no file blocks read)
    files_remove: bool = False  # "files" format: the request asks to remove something (a shorter file is no excerpt)
    named_check: str | None = None  # the test command the user's requests named last (outlives their compaction)
    # What fix trials already tried and found no fix for: the test command and the code it ran (fix_trials guard).
    # A follow-up ("still failing") on the same code would repeat the same minutes of rewrites for the same answer.
    fix_trials_spent: set[str] = field(default_factory=set)
    # "Allow for this session" answers: they end with the session (in this process), unlike "always".
    approvals: InMemoryDecisionStore = field(default_factory=InMemoryDecisionStore)
    prefix: PrefixChoice | None = None

    @property
    def busy(self) -> bool:
        return self.turn is not None and not self.turn.done()
