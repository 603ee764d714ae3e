"""The tool seam: a declarative spec (name, description, JSON schema, kind, policy) plus an async handler."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from .. import acp
from ..errors import ToolError
from ..messages import Rejection

if TYPE_CHECKING:
    from ..client_contract import AgentClient
    from ..llm.capabilities import CapabilityCache
    from .code_index import CodeIndex
    from .preview import Preview

Policy = Literal["allow", "ask", "deny"]


class Services(TypedDict, total=False):
    """Long-lived parts that tools and turns may use, shared by reference and filled in as they become available
    (the index once it is loaded or built)."""

    index: CodeIndex
    capability_cache: CapabilityCache


@dataclass
class ToolResult:
    """What a tool returns: `text` goes to the model; `content` (ACP blocks, e.g. a diff) goes to the client."""

    text: str
    is_error: bool = False
    content: list[acp.Content | acp.Diff] = field(default_factory=list)
    locations: list[acp.ToolCallLocation] = field(default_factory=list)
    raw_output: Any = None
    # Loop control: set by loop-breaking tools (ask_question, task_completion).
    ends_turn: bool = False
    # Set by update_plan: the loop sends it as a `plan` update.
    plan: list[acp.PlanEntry] | None = None
    # Set by the turn when the call did not run because the user or a policy said no (kept with the recorded result).
    rejected: Rejection | None = None
    # The call failed because it asked for what already is (ToolError's `unchanged`: write_file of the file's own text).
    unchanged: bool = False

    @classmethod
    def failed(cls, exc: ToolError) -> ToolResult:
        """The result of a call that raised `exc`: its message for the model, its typed reason kept."""
        return cls(text=f"Error: {exc}", is_error=True, unchanged=exc.unchanged)


# The page budget of the turn running in this task (set by the context step before each round), so a
# ToolContext built anywhere in the turn knows how big a result may be without every caller passing it.
PAGE_CHARS: ContextVar[int | None] = ContextVar("page_chars", default=None)


@dataclass
class ToolContext:
    """Everything a tool may touch. Paths go through `workspace` (the sandbox)."""

    session_id: str
    roots: list[Path]  # workspace roots; the first is the session cwd
    client: AgentClient
    services: Services = field(default_factory=lambda: Services())
    # How many characters a result may have to fit the model's window (None: no limit beyond the registry's).
    # Tools that can page (read_file, search_text, run_command, MCP results) return a page of this size with
    # a marker saying how to get the rest, instead of a result that would be cut later.
    page_chars: int | None = field(default_factory=PAGE_CHARS.get)
    call_id: str | None = None  # the tool call being run (a subagent's cards name it as their parent)
    # Workspace-relative paths whose content the user's read_file deny rules keep from the model: tools that show
    # file content found another way (search_text hits, codebase_search chunks) leave them out. None: no such rule.
    hidden: Callable[[str], bool] | None = None


Handler = Callable[[ToolContext, dict[str, Any]], Awaitable[ToolResult]]
# What a permission request shows for a call (tools/preview.py); raises ToolError when the call would fail anyway.
Previewer = Callable[[ToolContext, dict[str, Any]], Awaitable["Preview | None"]]
# What a call does to the one file (or folder: "lists") its `path` argument names: the hot-context note and the lint
# watch read it, and scoped rules are attached to the result of any call that touches a path.
Touches = Literal["reads", "writes", "lists"]


@dataclass(frozen=True)
class LeanForm:
    """How a tool is offered in the lean prompt of small windows and slow local servers (tools/lean.py)."""

    description: str | None = None  # None: its full definition, after the lean ones
    parameters: dict[str, Any] | None = None
    rank: int = 1000  # the lean definitions are offered lowest rank first
    only_if_named: bool = False  # left out unless the session's profile names it


@dataclass
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema (type: object)
    handler: Handler
    kind: acp.ToolKind = "other"
    default_policy: Policy = "ask"
    loop_breaking: bool = False
    never_compress: bool = False  # old results of this tool are kept whole by context compression
    title: Callable[[dict[str, Any]], str] | None = None
    locations: Callable[[ToolContext, dict[str, Any]], list[acp.ToolCallLocation]] | None = None
    source: str = "builtin"  # "builtin" or the MCP server name
    preview: Previewer | None = None  # what a permission request shows (None: the call's arguments)
    lean: LeanForm | None = None  # None: offered as it is in the lean prompt too
    touches: Touches | None = None

    def describe(self, arguments: dict[str, Any]) -> str:
        """A short human title for the client's tool card."""
        if self.title is not None:
            try:
                return self.title(arguments)
            except Exception:
                pass
        return self.name
