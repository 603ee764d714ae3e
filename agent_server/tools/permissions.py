"""The permission policy: allow, ask or deny one tool call, from defaults, settings rules and remembered choices.

Order of strength for one subject (a command segment, a path, or the call itself): deny > allow > ask > default.
A shell command is split into segments (`shell_segments.py`); it is allowed only if every segment is allowed,
and denied if any segment is denied. Patterns are `fnmatch` globs (`*` also matches `/`); a pattern ending in
` *` also matches the bare command (`pytest *` matches `pytest`).
"""

from __future__ import annotations

import fnmatch
import posixpath
import shlex
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from .. import acp
from ..config import ToolsConfig
from .base import Policy, Tool
from .shell_segments import UnbalancedCommandError, split_segments

COMMAND_TOOLS = frozenset({"run_command"})
# Commands whose second word picks what they do: `git status` and `git push` deserve separate decisions.
SUBCOMMAND_PROGRAMS = frozenset(
    {
        "git",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "cargo",
        "go",
        "uv",
        "pip",
        "pip3",
        "poetry",
        "docker",
        "kubectl",
        "make",
        "dotnet",
        "mvn",
        "gradle",
        "just",
        "hatch",
        "pdm",
        "deno",
        "swift",
        "brew",
        "apt",
        "apt-get",
        "gh",
        "conda",
    }
)


@dataclass
class Decision:
    """A remembered choice: `pattern` None means every call of `tool` in `workspace`."""

    id: str
    workspace: str
    tool: str
    pattern: str | None
    allow: bool
    created: float = field(default_factory=time.time)  # unix seconds


class DecisionStore(Protocol):
    """Where "always" choices live (in memory here; SQLite in the store)."""

    def list(self, workspace: str) -> list[Decision]: ...

    def add(self, decision: Decision) -> None: ...

    def revoke(self, decision_id: str) -> bool: ...


class InMemoryDecisionStore:
    """A DecisionStore that forgets everything when the process ends."""

    def __init__(self) -> None:
        self._items: dict[str, Decision] = {}

    def list(self, workspace: str) -> list[Decision]:
        return [d for d in self._items.values() if d.workspace == workspace]

    def add(self, decision: Decision) -> None:
        self._items[decision.id] = decision

    def revoke(self, decision_id: str) -> bool:
        return self._items.pop(decision_id, None) is not None


def permission_options() -> list[acp.PermissionOption]:
    """The four ACP choices offered for a tool call that needs approval."""
    return [
        acp.PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
        acp.PermissionOption(option_id="allow_always", name="Always allow", kind="allow_always"),
        acp.PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
        acp.PermissionOption(option_id="reject_always", name="Always reject", kind="reject_always"),
    ]


def glob_match(pattern: str, subject: str) -> bool:
    if fnmatch.fnmatchcase(subject, pattern):
        return True
    return pattern.endswith(" *") and subject == pattern[:-2]


def _escape_glob(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


# Words that run another command (or are shell syntax): "always allow" on them must not mean "allow anything".
WRAPPERS = frozenset(
    "env time sudo doas nice nohup command exec xargs timeout stdbuf builtin eval source . sh bash zsh dash "
    "busybox watch strace".split()
)
KEYWORDS = frozenset("if then else elif fi do done while until for case esac in select function ! { } [[ ]]".split())
# Output redirections that cannot write anywhere that matters.
_HARMLESS_REDIRECTS = ("2>&1", ">&2", "1>&2", "2>/dev/null", ">/dev/null", "&>/dev/null", "> /dev/null", "2> /dev/null")


def risky(segment: str) -> bool:
    """A segment that no allow rule may let through unasked: it writes through a redirection or uses $'...'."""
    rest = segment
    for harmless in _HARMLESS_REDIRECTS:
        rest = rest.replace(harmless, " ")
    return ">" in rest or "$'" in rest


def command_pattern(segment: str) -> str:
    """The pattern remembered for "always" on a command: its program (and subcommand) then ` *`.

    Only a plain program name earns a wildcard; a segment led by `VAR=value`, a wrapper (`sudo`, `env`, `time`…),
    a shell keyword, or options before a subcommand is remembered exactly as it was approved.
    """
    try:
        words = shlex.split(segment)
    except ValueError:
        words = segment.split()
    exact = _escape_glob(" ".join(words) if words else segment)
    if not words:
        return exact
    program = Path(words[0]).name
    if "=" in words[0] or program in WRAPPERS or program in KEYWORDS or risky(segment):
        return exact
    keep = words[:1]
    if program in SUBCOMMAND_PROGRAMS and len(words) > 1:
        if words[1].startswith("-"):
            return exact
        keep = words[:2]
    return " ".join(_escape_glob(w) for w in keep) + " *"


def workspace_path(workspace: Path, path: str) -> str:
    """A path argument as the workspace-relative, normalized form rules match against."""
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            return candidate.relative_to(workspace).as_posix() or "."
        except ValueError:
            return posixpath.normpath(candidate.as_posix())
    return posixpath.normpath(path.replace("\\", "/"))


class PermissionPolicy:
    """Decides "allow", "ask" or "deny" for a tool call; remembers "always" choices in a DecisionStore."""

    def __init__(self, settings: ToolsConfig, decisions: DecisionStore) -> None:
        self.settings = settings
        self.decisions = decisions

    def subjects(self, tool: Tool, arguments: dict[str, Any], workspace: Path) -> list[str] | None:
        """What patterns match against: command segments, a workspace-relative path, or None (the call)."""
        if tool.name in COMMAND_TOOLS and isinstance(arguments.get("command"), str):
            return split_segments(arguments["command"])
        path = arguments.get("path")
        if isinstance(path, str):
            return [workspace_path(workspace, path)]
        return None

    def _judge(self, tool: Tool, subject: str | None, decisions: Sequence[Decision]) -> Policy:
        verdicts: set[Policy] = set()
        # An allow that came from a command *pattern* must not cover a segment that writes through a redirection
        # (`ls > ~/.bashrc` under `ls *`); a blanket allow for the tool (pattern None) is the user's own choice.
        guarded = tool.name in COMMAND_TOOLS and subject is not None and risky(subject)
        for rule in self.settings.rules:
            if not fnmatch.fnmatchcase(tool.name, rule.tool):
                continue
            if rule.pattern is None:
                verdicts.add(rule.policy)
            elif subject is not None and glob_match(rule.pattern, subject):
                verdicts.add("ask" if guarded and rule.policy == "allow" else rule.policy)
        for decision in decisions:
            if not fnmatch.fnmatchcase(tool.name, decision.tool):
                continue
            verdict: Policy = "allow" if decision.allow else "deny"
            if decision.pattern is None:
                verdicts.add(verdict)
            elif subject is not None and glob_match(decision.pattern, subject):
                verdicts.add("ask" if guarded and verdict == "allow" else verdict)
        for strongest in ("deny", "allow", "ask"):
            if strongest in verdicts:
                return strongest  # type: ignore[return-value]
        return self.settings.policy.get(tool.name, tool.default_policy)

    def decide(self, tool: Tool, arguments: dict[str, Any], workspace: Path | str) -> Policy:
        """The verdict for one call in `workspace` (the session's root)."""
        return self._decide(tool, arguments, Path(workspace))[0]

    def _decide(self, tool: Tool, arguments: dict[str, Any], workspace: Path) -> tuple[Policy, list[str]]:
        """The verdict and the subjects that are not yet allowed."""
        decisions = self.decisions.list(str(workspace))
        try:
            subjects = self.subjects(tool, arguments, workspace)
        except UnbalancedCommandError:
            # We cannot tell what would run: judge the whole text, and never let it through unasked.
            whole = str(arguments.get("command", ""))
            verdict = self._judge(tool, whole, decisions)
            return ("deny" if verdict == "deny" else "ask"), [whole]
        if subjects is None:
            verdict = self._judge(tool, None, decisions)
            return verdict, [] if verdict == "allow" else [""]
        if not subjects:  # an empty command line
            return self._judge(tool, "", decisions), []
        verdicts = [(s, self._judge(tool, s, decisions)) for s in subjects]
        pending = [s for s, v in verdicts if v != "allow"]
        if any(v == "deny" for _, v in verdicts):
            return "deny", pending
        return ("allow" if not pending else "ask"), pending

    def remember(self, tool: Tool, arguments: dict[str, Any], workspace: Path | str, allow: bool) -> list[Decision]:
        """Store an "always allow" (allow=True) or "always reject" choice for this call; returns what was stored.

        Commands store one `program [subcommand] *` pattern per segment not yet allowed; file tools the exact path.
        """
        ws = Path(workspace)
        _, pending = self._decide(tool, arguments, ws)
        if tool.name in COMMAND_TOOLS:
            patterns: list[str | None] = list(dict.fromkeys(command_pattern(s) for s in pending if s))
        elif isinstance(arguments.get("path"), str):
            patterns = [_escape_glob(workspace_path(ws, arguments["path"]))]
        else:
            patterns = [None]
        stored = []
        for pattern in patterns:
            decision = Decision(id=uuid.uuid4().hex, workspace=str(ws), tool=tool.name, pattern=pattern, allow=allow)
            self.decisions.add(decision)
            stored.append(decision)
        return stored
