"""Custom slash commands: markdown prompt files with frontmatter, in each peer's folder, and MCP prompts.

Where (a later source replaces an earlier command of the same name):

1. the user's: `<config dir>/commands/**/*.md`;
2. the workspace's: `.claude/commands/**/*.md`, `.github/prompts/*.prompt.md`, `.agent-server/commands/**/*.md`.

The name is the file name without `.md` / `.prompt.md`; a subfolder makes a namespace (`frontend/test.md` is
`/frontend:test`). Frontmatter (all optional): `description`, `argument-hint` (or `arguments`, a list of names),
`mode` or `agent` (the agent profile that turn runs in), `model`. The body is the prompt: `$ARGUMENTS` is everything
after the name, `$1`..`$9` its words (shell quoting), `${input:NAME}` (Copilot's form) the words in order of first
use. A body without any placeholder gets the arguments appended.

A command only ever becomes the text of the user's own message, when the user runs it: it grants nothing, and the
profile it names comes from the same catalog (trust-filtered) as the mode picker.

A workspace's command files follow the rule its rules files do: a file, or a folder on its way, that is a link out
of the workspace is not read (its outside content would become the user's message), nor is a hard-linked file
(another of its names may be outside); only regular files are read, and at most MAX_FILES per folder. A `refuse`
callback (the session's read_file deny rules, judged on the written and the real path) skips a file the user's rules
keep from the model.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import SandboxError
from ..tools.sandbox import hard_linked, read_regular
from .frontmatter import split

MAX_FILE_BYTES = 64_000
MAX_FILES = 500  # per folder: every prompt lists them again; a repository of thousands is not read whole each time
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
SOURCES = ((".claude/commands", "**/*.md"), (".github/prompts", "*.prompt.md"), (".agent-server/commands", "**/*.md"))
_POSITIONAL = re.compile(r"\$([1-9])")
_INPUT = re.compile(r"\$\{input:([A-Za-z0-9_-]+)(?::[^}]*)?\}")


class CommandSpec(BaseModel):
    """The frontmatter of a command file."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    description: str | None = None
    argument_hint: str | None = Field(default=None, alias="argument-hint")
    arguments: list[str] | None = None
    mode: str | None = None
    agent: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class CustomCommand:
    name: str
    description: str
    hint: str | None
    body: str
    source: str
    """Where it came from: a file label (`.claude/commands/review.md`, `~/…`) or `mcp:SERVER`."""
    mode: str | None = None
    model: str | None = None
    mcp: tuple[str, str, tuple[str, ...]] | None = None
    """An MCP prompt: (server, prompt name, argument names)."""

    def advertised(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "hint": self.hint, "source": self.source}


@dataclass(frozen=True)
class Invocation:
    """A prompt that started with a known command: the text the model gets, and the turn's overrides."""

    command: CustomCommand
    arguments: str
    text: str


def user_commands_dir() -> Path:
    return Path(platformdirs.user_config_dir("agent-server")) / "commands"


def _name(path: Path, base: Path) -> str:
    rel = path.relative_to(base).as_posix()
    for suffix in (".prompt.md", ".md"):
        if rel.endswith(suffix):
            rel = rel[: -len(suffix)]
            break
    return rel.replace("/", ":")


def _label(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        try:
            return "~/" + path.relative_to(Path.home()).as_posix()
        except ValueError:
            return str(path)


def parse_command(path: Path, base: Path, root: Path) -> CustomCommand:
    """One command file; ValueError names the file and the bad key."""
    name = _name(path, base)
    if not NAME.match(name):
        raise ValueError(f"{path}: the command name {name!r} must be letters, digits, '_', '-', '.' or ':'")
    data = read_regular(path, MAX_FILE_BYTES, truncate=True)  # never blocks on a FIFO swapped in after the listing
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    front, body = split(text)
    try:
        spec = CommandSpec.model_validate(front)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "frontmatter"
        raise ValueError(f"{path}: {key}: {first['msg']}") from None
    hint = spec.argument_hint or (" ".join(f"<{a}>" for a in spec.arguments) if spec.arguments else None)
    if hint is None and (names := _input_names(body)):
        hint = " ".join(f"<{n}>" for n in names)
    first_line = next((line.strip("# ").strip() for line in body.splitlines() if line.strip("-# \t")), "")
    return CustomCommand(
        name=name,
        description=spec.description or first_line[:80] or name,
        hint=hint,
        body=body.strip(),
        source=_label(path, root),
        mode=spec.mode or spec.agent,
        model=spec.model,
    )


def inside(path: Path, real_root: str) -> bool:
    """`path` (every link on its way followed) is `real_root` or below it."""
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def workspace_problem(path: Path, real_root: str, label: str) -> str | None:
    """Why a workspace file (a command, a skill) is not read, or None (inside the workspace, one name only)."""
    if not inside(path, real_root):
        return f"{label}: a link out of the workspace (the file or a folder on its way); not read"
    try:
        if hard_linked(path.stat()):
            return f"{label}: a hard link (another of its names may be outside the workspace); not read"
    except OSError as exc:
        return f"{label}: {exc.strerror or exc}"
    return None


def discover_commands(
    root: Path, user_dir: Path | None = None, refuse: Callable[[Path], str | None] | None = None
) -> tuple[dict[str, CustomCommand], list[str]]:
    """The commands by name (later sources win), and the problems of the files that were skipped. `refuse` names
    why a workspace file may not be read (a deny rule), or None."""
    found: dict[str, CustomCommand] = {}
    problems: list[str] = []
    real_root = os.path.realpath(root)
    bases = [(user_dir or user_commands_dir(), "**/*.md", False)]
    bases += [(root / folder, glob, True) for folder, glob in SOURCES]
    for base, pattern, workspace in bases:
        if not base.is_dir():
            continue
        if workspace and not inside(base, real_root):  # not even listed: it could be any folder, `/` included
            problems.append(f"{_label(base, root)}: a link out of the workspace; its commands are not read")
            continue
        paths = sorted(base.glob(pattern))
        if len(paths) > MAX_FILES:
            problems.append(f"{_label(base, root)}: {len(paths)} files, only the first {MAX_FILES} are read")
        for path in paths[:MAX_FILES]:
            if not path.is_file():
                continue
            label = _label(path, root)
            why = workspace_problem(path, real_root, label) if workspace else None
            if why is None and workspace and refuse is not None and (denied := refuse(path)):
                why = f"{label}: {denied}; not read"
            if why is not None:
                problems.append(why)
                continue
            try:
                command = parse_command(path, base, root)
            except (OSError, ValueError, SandboxError) as exc:
                problems.append(str(exc))
                continue
            found[command.name] = command
    return found, problems


def _input_names(body: str) -> list[str]:
    return list(dict.fromkeys(_INPUT.findall(body)))


def words(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments)
    except ValueError:  # an unclosed quote: plain words rather than an error
        return arguments.split()


def expand(body: str, arguments: str) -> str:
    """The prompt for `body` run with `arguments` (see the module docstring for the placeholders)."""
    parts = words(arguments)
    inputs = _input_names(body)
    used = "$ARGUMENTS" in body or _POSITIONAL.search(body) is not None or bool(inputs)
    text = body.replace("$ARGUMENTS", arguments)
    text = _POSITIONAL.sub(lambda m: parts[int(m.group(1)) - 1] if int(m.group(1)) <= len(parts) else "", text)
    text = _INPUT.sub(lambda m: _nth(parts, inputs.index(m.group(1))), text)
    if not used and arguments:
        text = f"{text}\n\n{arguments}"
    return text


def _nth(parts: list[str], index: int) -> str:
    return parts[index] if index < len(parts) else ""


def split_invocation(text: str) -> tuple[str, str] | None:
    """`/name args` -> (name, args); None when the text is not a slash command."""
    stripped = text.lstrip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    found = re.match(r"/(\S+)", stripped)
    if found is None or not NAME.match(found.group(1)):
        return None
    return found.group(1), stripped[found.end() :].strip()
