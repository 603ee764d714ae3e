"""The permission policy: allow, ask or deny one tool call, from defaults, settings rules and remembered choices.

Order of strength for one subject (a command segment, a path, or the call itself): deny > allow > ask > default.
A shell command is parsed with a real bash grammar (`shell_parse.py`) into segments; it is allowed only if every
segment is allowed, and denied if any segment is denied. Patterns are `fnmatch` globs (`*` also matches `/`); a
pattern ending in ` *` also matches the bare command (`pytest *` matches `pytest`). An allow pattern covers only
segments the grammar shows to be a plain program with plain arguments; anything it cannot model (substitutions,
assignments, wrappers, redirections...) needs an allow for exactly that text, or for every call of the tool, and a
command the grammar is unsure of is always asked about (docs/tools.md lists the rules).
"""

from __future__ import annotations

import fnmatch
import shlex
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from .. import acp
from ..config import ToolsConfig
from .base import Policy, Tool
from .kinds import FETCHES_URLS, READ_ONLY_KINDS, RUNS_COMMANDS
from .path_rules import PathForms, both_forms, path_forms
from .protected_paths import protected_path
from .reading import ReadFile
from .shell_parse import BLANKET, INTERPRETERS, PLAIN, Segment, parse_command
from .shell_parse import WRAPPERS as _SHELL_WRAPPERS

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


SESSION_OPTION = "allow_session"


def permission_options() -> list[acp.PermissionOption]:
    """The ACP choices offered for a tool call that needs approval.

    ACP has no kind for "this session": `allow_session` carries kind `allow_once`, so a client that knows only the
    kinds treats it as the weaker choice (never as a remembered "always"); it comes after `allow_once`, so a client
    picking the first option of a kind still gets "once".
    """
    session = acp.PermissionOption(option_id=SESSION_OPTION, name="Allow for this session", kind="allow_once")
    session.meta = {"scope": "session"}
    return [
        acp.PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
        session,
        acp.PermissionOption(option_id="allow_always", name="Always allow", kind="allow_always"),
        acp.PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
        acp.PermissionOption(option_id="reject_always", name="Always reject", kind="reject_always"),
    ]


def glob_match(pattern: str, subject: str) -> bool:
    if fnmatch.fnmatchcase(subject, pattern):
        return True
    return pattern.endswith(" *") and subject == pattern[:-2]


def _host(url: object) -> str:
    """A URL's host as rules match it; "" (matched by no pattern but a bare `*`) when it has none."""
    from .web_fetch import host_of

    return host_of(url) if isinstance(url, str) else ""


def _escape_glob(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def _literal(pattern: str) -> str | None:
    """The one text `pattern` matches if it has no wildcard (`[*]` style escapes allowed), else None."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "[" and i + 2 < len(pattern) and pattern[i + 2] == "]" and pattern[i + 1] in "*?[":
            out.append(pattern[i + 1])
            i += 3
        elif c in "*?[":
            return None
        else:
            out.append(c)
            i += 1
    return "".join(out)


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
        # The same words as written (quotes kept): the pattern must match the segment's text, not its meaning.
        raw = shlex.split(segment, posix=False)
    except ValueError:
        words = raw = segment.split()
    if len(raw) != len(words):
        raw = words
    exact = _escape_glob(segment)
    if not words:
        return exact
    program = Path(words[0]).name
    if "=" in words[0] or program in WRAPPERS or program in KEYWORDS or risky(segment):
        return exact
    keep = raw[:1]
    if program in INTERPRETERS:
        # `python3 -m pytest` must not become `python3 *`: that would allow any code. Keep the script or module.
        if len(words) > 2 and words[1] == "-m":
            keep = raw[:3]
        elif len(words) > 1 and not words[1].startswith("-"):
            keep = raw[:2]
        else:
            return exact
    elif program in SUBCOMMAND_PROGRAMS and len(words) > 1:
        if words[1].startswith("-"):
            return exact
        keep = raw[:2]
    return " ".join(_escape_glob(w) for w in keep) + " *"


def _deny_forms(segment: Segment) -> list[str]:
    """The texts a deny pattern is tried on: as written, unquoted, and without leading wrappers (`sudo rm` is `rm`)."""
    forms = [segment.text]
    try:
        words = shlex.split(segment.text)
    except ValueError:
        words = list(segment.argv or ())
    if segment.argv:
        forms.append(" ".join(segment.argv))
    forms.append(" ".join(words))
    option = False  # the last word dropped was an option, so a number after it is its value (`nice -n 5`)
    while words and (
        Path(words[0]).name in _SHELL_WRAPPERS
        or words[0].startswith("-")
        or "=" in words[0]
        or (option and words[0].isdigit())
    ):
        option = words.pop(0).startswith("-")
    if words:
        forms.append(" ".join(words))
    return forms


def _runs_command(tool: Tool, arguments: dict[str, Any]) -> bool:
    """A call whose subject is a command line (rules match its segments)."""
    return tool.kind == RUNS_COMMANDS and isinstance(arguments.get("command"), str)


def _fetches(tool: Tool) -> bool:
    """A tool whose subject is a URL's host (rules and "always" answers name hosts: `*.python.org`)."""
    return tool.kind == FETCHES_URLS


# read_file as the policy knows it (name, kind, default): what a read without a tool call is judged as.
_READ_FILE = ReadFile().tool()


class PermissionPolicy:
    """Decides "allow", "ask" or "deny" for a tool call; remembers "always" choices in a DecisionStore."""

    def __init__(self, settings: ToolsConfig, decisions: DecisionStore, session: DecisionStore | None = None) -> None:
        self.settings = settings
        self.decisions = decisions
        self.session = session  # "allow for this session" answers: kept in memory with the session

    def _decisions(self, workspace: Path) -> list[Decision]:
        remembered = self.decisions.list(str(workspace))
        return remembered + self.session.list(str(workspace)) if self.session is not None else remembered

    def subjects(self, tool: Tool, arguments: dict[str, Any], workspace: Path) -> list[str] | None:
        """What patterns match against: command segments, a workspace-relative path, or None (the call)."""
        if _runs_command(tool, arguments):
            return [s.text for s in self._segments(arguments, workspace)[0]]
        if _fetches(tool):
            return [_host(arguments.get("url"))]
        forms = self.path_forms(tool, arguments, workspace)
        return [forms.written] if forms is not None else None

    @staticmethod
    def path_forms(tool: Tool, arguments: dict[str, Any], workspace: Path) -> PathForms | None:
        """A path argument as written and as it resolves through links (path_rules.py); None without one."""
        path = arguments.get("path")
        if tool.kind == RUNS_COMMANDS or _fetches(tool) or not isinstance(path, str):
            return None
        return path_forms(workspace, path)

    @staticmethod
    def _segments(arguments: dict[str, Any], workspace: Path) -> tuple[list[Segment], list[str]]:
        cwd = arguments.get("cwd")
        parsed = parse_command(str(arguments["command"]), workspace, cwd if isinstance(cwd, str) else None)
        return parsed.segments, parsed.doubts

    @staticmethod
    def _verdict(policy: Policy, pattern: str | None, subject: str | None, segment: Segment | None) -> Policy | None:
        """What one rule or decision says about one subject (None: it does not apply)."""
        if pattern is None:
            return policy  # a blanket rule for the tool: the user's own choice for every call
        if subject is None:
            return None
        if segment is None:
            return policy if glob_match(pattern, subject) else None
        if policy == "deny":
            return "deny" if any(glob_match(pattern, form) for form in _deny_forms(segment)) else None
        if not glob_match(pattern, subject):
            return None
        if policy != "allow" or segment.level == PLAIN:
            return policy
        # What a pattern cannot model is allowed only by a decision for exactly this text, and never if even the
        # text does not show what runs (a here-document's body, a pipe into an interpreter). Otherwise the pattern
        # does not apply: the tool's default (ask, unless the user allowed every command) decides.
        return "allow" if segment.level < BLANKET and _literal(pattern) == subject else None

    def _judge(
        self, tool: Tool, subject: str | None, decisions: Sequence[Decision], seg: Segment | None = None
    ) -> Policy:
        verdicts: set[Policy | None] = set()
        for rule in self.settings.rules:
            if fnmatch.fnmatchcase(tool.name, rule.tool):
                verdicts.add(self._verdict(rule.policy, rule.pattern, subject, seg))
        for decision in decisions:
            if fnmatch.fnmatchcase(tool.name, decision.tool):
                verdicts.add(self._verdict("allow" if decision.allow else "deny", decision.pattern, subject, seg))
        for strongest in ("deny", "allow", "ask"):
            if strongest in verdicts:
                return strongest  # type: ignore[return-value]
        return self.settings.policy.get(tool.name, tool.default_policy)

    def decide(self, tool: Tool, arguments: dict[str, Any], workspace: Path | str) -> Policy:
        """The verdict for one call in `workspace` (the session's root)."""
        return self._decide(tool, arguments, Path(workspace))[0]

    def _has_deny_pattern(self, tool: Tool, decisions: Sequence[Decision]) -> bool:
        rules = any(
            r.policy == "deny" and r.pattern is not None and fnmatch.fnmatchcase(tool.name, r.tool)
            for r in self.settings.rules
        )
        return rules or any(
            not d.allow and d.pattern is not None and fnmatch.fnmatchcase(tool.name, d.tool) for d in decisions
        )

    def _decide(
        self, tool: Tool, arguments: dict[str, Any], workspace: Path, decisions: list[Decision] | None = None
    ) -> tuple[Policy, list[Segment]]:
        """The verdict and the segments that are not yet allowed (for a command; one pseudo-segment otherwise).
        `decisions`: the remembered answers already read (a caller judging many paths reads them once)."""
        decisions = self._decisions(workspace) if decisions is None else decisions
        if not _runs_command(tool, arguments):
            forms = self.path_forms(tool, arguments, workspace)
            if forms is not None:  # an allow must hold for where the path really lands too; a deny for either
                subject: str | None = forms.written
                verdict = both_forms(self._judge(tool, form, decisions) for form in forms.forms)
            else:
                subjects = self.subjects(tool, arguments, workspace)
                subject = subjects[0] if subjects else None
                verdict = self._judge(tool, subject, decisions)
            path = arguments.get("path")
            if verdict == "allow" and tool.kind not in READ_ONLY_KINDS and isinstance(path, str):
                reason = protected_path(workspace, path)
                if reason:  # whatever the rules say: this write could make a tool run a program
                    return "ask", [Segment(subject or "", reasons=(reason,))]
            return verdict, [] if verdict == "allow" else [Segment(subject or "")]
        segments, doubts = self._segments(arguments, workspace)
        if not segments and not doubts:  # an empty command line
            return self._judge(tool, "", decisions), []
        verdicts = [(s, self._judge(tool, s.text, decisions, s)) for s in segments]
        if doubts:
            # We cannot be sure what would run: judge the whole text too, and never let it through unasked.
            whole = str(arguments["command"])
            verdicts.append((Segment(whole, BLANKET), self._judge(tool, whole, decisions)))
        pending = [s for s, v in verdicts if v != "allow"]
        if any(v == "deny" for _, v in verdicts):
            return "deny", pending
        if doubts:
            return "ask", pending
        if any(s.opaque for s in segments) and self._has_deny_pattern(tool, decisions):
            return "ask", pending  # a deny rule cannot be checked against a program only known when it runs
        return ("allow" if not pending else "ask"), pending

    def hidden_files(self, workspace: Path | str) -> Callable[[str], bool] | None:
        """Which files other tools must not show the content of (search_text hits, codebase_search chunks): those a
        read_file deny rule or "Always reject" with a path pattern covers; None when there is none (nothing to
        check per file)."""
        ws = Path(workspace)
        decisions = self._decisions(ws)  # read once for the whole search, not once per file it visits
        if not self._has_deny_pattern(_READ_FILE, decisions):
            return None
        return lambda rel: self._decide(_READ_FILE, {"path": rel}, ws, decisions)[0] == "deny"

    def read_refusal(self, path: Path | str, workspace: Path | str) -> str | None:
        """Why the server may not read `path` for the model without a tool call (a custom command's file, an MCP
        resource naming a workspace file), or None: read_file's deny rules and "Always reject" answers, on both forms
        of the path. Only a deny refuses: the user asked for this content themselves, so "ask" is a yes."""
        if self._decide(_READ_FILE, {"path": str(path)}, Path(workspace))[0] == "deny":
            return "a deny rule for read_file matches it (as written or where it really lands)"
        return None

    def why(self, tool: Tool, arguments: dict[str, Any], workspace: Path | str) -> list[str]:
        """Why this call is asked about, in words for the permission request: the parts of a command no rule allows
        and what makes each one need an exact approval, the parser's doubts, a path that always asks."""
        ws = Path(workspace)
        verdict, pending = self._decide(tool, arguments, ws)
        if verdict != "ask":
            return []
        out: list[str] = []
        if _runs_command(tool, arguments):
            segments, doubts = self._segments(arguments, ws)
            out += [f"cannot be sure what runs: {d}" for d in dict.fromkeys(doubts)]
            for segment in pending:
                if segment.level == BLANKET and segment.text == str(arguments["command"]) and doubts:
                    continue  # the whole text, judged only because of the doubts above
                because = "; ".join(segment.reasons) or "no rule or earlier answer allows it"
                out.append(f"`{segment.text}`: {because}")
            if not out and any(getattr(s, "opaque", False) for s in segments):
                out.append("a deny rule cannot be checked against a program known only when it runs")
        else:
            out += [f"always asked: {r}" for s in pending for r in s.reasons]
            if not out:
                forms = self.path_forms(tool, arguments, ws)
                subjects = self.subjects(tool, arguments, ws)
                what = f"{tool.name} on {subjects[0]}" if subjects else tool.name
                if forms is not None and forms.through_link:
                    what += f" (through a link it is {forms.resolved}; a rule must allow both)"
                out.append(f"{what}: no rule or earlier answer allows it")
        return out

    def remember(
        self,
        tool: Tool,
        arguments: dict[str, Any],
        workspace: Path | str,
        allow: bool,
        store: DecisionStore | None = None,
    ) -> list[Decision]:
        """Store an "always allow" (allow=True) or "always reject" choice for this call (in `store` if given, e.g.
        the session's); returns what was stored.

        Commands store, per segment not yet allowed, `program [subcommand] *` for a plain command and the exact
        text for anything else (nothing for a segment whose text does not show what runs); file tools the exact path.
        """
        ws = Path(workspace)
        _, pending = self._decide(tool, arguments, ws)
        if tool.kind == RUNS_COMMANDS:
            patterns: list[str | None] = list(
                dict.fromkeys(
                    command_pattern(s.text) if s.level == PLAIN else _escape_glob(s.text)
                    for s in pending
                    if s.text and (s.level < BLANKET or not allow)
                )
            )
        elif _fetches(tool):
            host = _host(arguments.get("url"))
            patterns = [_escape_glob(host)] if host else []  # no host, nothing to remember: asked again
        elif (forms := self.path_forms(tool, arguments, ws)) is not None:
            # Both forms, each exactly: the same call is let through again, and neither widens through a link (a
            # link later pointed elsewhere lands on a path no decision names, so that call is asked about).
            patterns = [_escape_glob(form) for form in forms.forms]
        else:
            patterns = [None]
        stored = []
        for pattern in patterns:
            decision = Decision(id=uuid.uuid4().hex, workspace=str(ws), tool=tool.name, pattern=pattern, allow=allow)
            (store or self.decisions).add(decision)
            stored.append(decision)
        return stored
