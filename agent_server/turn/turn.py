"""What one turn is made of: the `Turn` the service builds and every step of the loop reads.

The steps (context, model call, tool call, guards) import this module, never the loop, so the loop can import
them. The context step is seen through `TurnContext`, the few things the loop and the guards ask of it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .. import acp
from ..client_contract import AgentClient
from ..config import Settings
from ..llm.base import ChatRequest, ModelInfo, Provider, ToolSpec
from ..messages import Message, ToolCall, Usage
from ..tools.base import Services, Tool, ToolResult
from .guards.repeated_calls import CallRepeats
from .guards.repeated_looks import RepeatedLooks
from .live_session import Session
from .relay import UpdateRelay

if TYPE_CHECKING:
    from ..tools.permissions import PermissionPolicy
    from ..tools.registry import ToolRegistry

StopReason = acp.StopReason


class TurnContext(Protocol):
    """The context step as the loop sees it: fit the history into the window, learn from what the server saw."""

    system_prompt: str
    model_info: ModelInfo | None
    provider_name: str
    window: int
    persist: Callable[[list[Message]], Awaitable[None]]

    @property
    def prompt_tools(self) -> bool: ...

    async def prepare(self, turn: Turn) -> tuple[list[Message], list[ToolSpec], int | None]: ...

    async def observe(self, request: ChatRequest, usage: Usage) -> None: ...

    def truncated(self, usage: Usage) -> bool: ...

    def shrink_window(self, n_ctx: int | None) -> None: ...


@dataclass
class Turn:
    """Everything one turn needs; built by the service, read by the loop."""

    session: Session
    client: AgentClient
    provider: Provider
    model: str
    settings: Settings
    tools: ToolRegistry
    policy: PermissionPolicy
    context: TurnContext
    record: Callable[[Message], Awaitable[None]]
    relay: UpdateRelay
    services: Services = field(default_factory=lambda: Services())
    # Calls written in the answer's text (offered names only): the ones to run, and how many more it held (capped).
    recover_calls: Callable[[str, set[str]], tuple[list[ToolCall], int]] | None = None
    # Called before a tool that may change files runs (after approval): takes the turn's checkpoint.
    checkpoint: Callable[[Tool, dict[str, Any]], Awaitable[None]] | None = None
    # Called after approval, before an edit tool runs: returns what to call after it ran (the errors it introduced).
    watch_edit: Callable[[Tool, dict[str, Any]], Awaitable[Callable[[], Awaitable[str]] | None]] | None = None
    # The user's answers in this turn, by call (tool and arguments): the same call is not asked about twice.
    answers: dict[str, bool] = field(default_factory=dict)
    changed: bool = False  # a tool that may change files ran since the last verify (turn/verify.py)
    # What each file held before the turn first changed it (None: it did not exist; originals.py), and whether the
    # changes since were tried against the named tests' files and broke none of their tests (fix trials).
    originals: dict[Path, bytes | None] = field(default_factory=dict)
    changes_tried: bool = False
    # Around each call that passed validation: `before_tool` may block it (returns the reason; hooks), and
    # `after_tool` may add to its result (scoped rules files, hooks). Both come from context_sources/ and hooks/.
    before_tool: Callable[[Tool, ToolCall], Awaitable[str | None]] | None = None
    after_tool: Callable[[Tool, ToolCall, ToolResult], Awaitable[ToolResult]] | None = None
    # Counters of the robustness paths, so each stays capped within the turn.
    nudges: dict[str, int] = field(default_factory=dict)
    repeats: CallRepeats = field(default_factory=CallRepeats)  # the same tool call again and again
    looks: RepeatedLooks = field(default_factory=RepeatedLooks)  # the same read again, with nothing changed
    round: int = 0  # the round in progress, from 1
    prompt: list[Message] = field(default_factory=list)  # the messages of the last request, as the model saw them
    # After a nudge to use a tool (a deflection, an unread file, a call of a non-tool), the next request requires a
    # tool call: a small model that answered in prose twice usually does so a third time unless the server insists.
    require_tool: bool = False
    # After write_file refused a file sent back unchanged, the next request is sampled (guards/resample.py).
    resample: bool = False

    def take(self, kind: str, cap: int) -> bool:
        """Count one more use of the robustness path `kind`; False (and nothing counted) once `cap` were used."""
        used = self.nudges.get(kind, 0)
        if used >= cap:
            return False
        self.nudges[kind] = used + 1
        return True
