"""An agent profile: a named agent with its own prompt, tools, model, permissions and limits (seed 000's agent
builder; Roo's custom modes, Continue's agents, Claude Code's subagents). Profiles are markdown files with YAML
frontmatter; the frontmatter is validated here, the body is appended to the system prompt."""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..tools.kinds import ACTING_KINDS
from .subagents import RUN_AGENT

Policy = Literal["allow", "ask", "deny"]
Scope = Literal["builtin", "user", "workspace"]
Kind = Literal["chat", "task", "orchestrate"]
NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,39}$"


class PermissionRule(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tool: str
    """A tool name or glob (`write_file`, `github__*`)."""
    policy: Policy
    pattern: str | None = None
    """A glob on the workspace-relative path (file tools) or the command (run_command)."""


class ProfileSpec(BaseModel):
    """The frontmatter of a profile file."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)
    name: str = Field(pattern=NAME_PATTERN)
    """Lower-case letters, digits, `-` and `_`; the file name without `.md` by default."""
    description: str = ""
    model: str | None = None
    """A model of the configured LLM server (default: the session's model)."""
    tools: list[str] | None = None
    """Allowlist of tool names or globs (`read_file`, `search_*`, `github__*`); default: every tool."""
    permissions: dict[str, Policy] | list[PermissionRule] = Field(default_factory=dict)
    """Per tool: allow / ask / deny, or rules with path or command globs. Deny always wins."""
    max_rounds: int | None = Field(default=None, ge=1, le=500)
    temperature: float | None = Field(default=None, ge=0, le=2)
    kind: Kind = "chat"
    """`task`: must finish with task_completion; `orchestrate`: plan, run steps, synthesize."""
    planner_model: str | None = None
    """orchestrate: the model that writes the plan and the synthesis (default: `model`)."""
    worker_model: str | None = None
    """orchestrate: the model that runs each step (default: `model`)."""
    max_steps: int = Field(default=6, ge=1, le=20)
    """orchestrate: at most this many plan steps are run."""


@dataclass(frozen=True)
class Profile:
    spec: ProfileSpec
    prompt: str  # the markdown body, appended to the system prompt
    scope: Scope
    path: Path | None = None
    notices: tuple[str, ...] = field(default=())  # e.g. permissions ignored until the workspace is trusted

    @property
    def name(self) -> str:
        return self.spec.name

    def rules(self) -> list[PermissionRule]:
        perms = self.spec.permissions
        if isinstance(perms, dict):
            return [PermissionRule(tool=tool, policy=policy) for tool, policy in perms.items()]
        return list(perms)

    def offers(self, tool_name: str, loop_breaking: bool = False) -> bool:
        """Whether the profile's allowlist lets the model see `tool_name` (loop-breaking tools always pass, so
        a profile can always end its turn or ask the user)."""
        allow = self.spec.tools
        return allow is None or loop_breaking or any(fnmatchcase(tool_name, glob) for glob in allow)

    @property
    def read_only(self) -> bool:
        """Offers nothing that edits, runs or delegates (an MCP tool's effects are unknown, so a profile that can
        reach one is not read-only)."""
        allow = self.spec.tools
        return allow is not None and all(_looks_only(glob) for glob in allow)


def changing_tools() -> frozenset[str]:
    """The built-in tools that change the workspace or run programs, by their kinds, and run_agent (it delegates)."""
    from ..tools.builtin import kinds  # every tool module: only when a profile's read-only flag is asked for

    return frozenset(name for name, kind in kinds().items() if kind in ACTING_KINDS) | {RUN_AGENT}


def _looks_only(glob: str) -> bool:
    """No built-in tool that changes things matches, and no MCP tool (`server__tool`) can match."""
    if "__" in glob or fnmatchcase("some_server__some_tool", glob):
        return False
    return not any(fnmatchcase(name, glob) for name in changing_tools())
