"""Skills: folders with a `SKILL.md` (frontmatter `name`, `description`; the body is the instructions), found where
the peers keep them. Only each skill's name and one-line description reach the prompt; the body is read when the
model (the `load_skill` tool) or the user (`/name`) loads it, and the files beside it are read the same way.

Where (the first skill of a name wins, so a repository cannot replace one of yours):

1. the user's: `<config dir>/skills/*/SKILL.md`;
2. the workspace's: `.agents/skills/*/SKILL.md`, `.claude/skills/*/SKILL.md`, `.agent-server/skills/*/SKILL.md`.

A workspace's skills follow the rules files' and custom commands' rule: a folder or file that is a link out of the
workspace, or a hard-linked file, is not read; only regular files are; at most MAX_SKILLS per folder; a `refuse`
callback (the session's read_file deny rules) skips a file the user keeps from the model. Frontmatter that would
grant something (`allowed-tools`) is ignored: a skill is text, it grants nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import platformdirs

from ..errors import SandboxError
from ..tools.sandbox import hard_linked, read_regular
from .commands import NAME, inside, workspace_problem
from .frontmatter import split

Scope = Literal["user", "workspace"]
Refuse = Callable[[Path], str | None]

FILE = "SKILL.md"
WORKSPACE_DIRS = (".agents/skills", ".claude/skills", ".agent-server/skills")
MAX_SKILLS = 100  # per folder: each is one line of every prompt
HEAD_BYTES = 8_000  # the frontmatter is read from this much; the body only when the skill is loaded
MAX_BODY_BYTES = 64_000
MAX_DESCRIPTION = 200  # characters of the one line the prompt shows
MAX_FILES = 40  # files beside SKILL.md listed when it is loaded
MAX_DEPTH = 3


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    folder: Path
    """The skill's folder as found (for a workspace skill, inside the workspace)."""
    label: str
    """How it is named to the user and the model: `.claude/skills/pdf/SKILL.md`, `~/…`."""
    scope: Scope


def user_skills_dir() -> Path:
    return Path(platformdirs.user_config_dir("agent-server")) / "skills"


def _label(path: Path, root: Path) -> str:
    for base, prefix in ((root, ""), (Path.home(), "~/")):
        try:
            return prefix + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)


def one_line(text: str, width: int = MAX_DESCRIPTION) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _problem(path: Path, real_root: str | None, refuse: Refuse | None, label: str) -> str | None:
    """Why a skill file is not read, or None. `real_root`: the workspace's (None for the user's own files)."""
    if real_root is not None and (why := workspace_problem(path, real_root, label)) is not None:
        return why
    if real_root is None:
        try:
            if hard_linked(path.stat()):
                return f"{label}: a hard link (another of its names may be outside the workspace); not read"
        except OSError as exc:
            return f"{label}: {exc.strerror or exc}"
    if real_root is not None and refuse is not None and (denied := refuse(path)):
        return f"{label}: {denied}; not read"
    return None


def _parse(path: Path, folder: Path, root: Path, scope: Scope) -> Skill:
    text = read_regular(path, HEAD_BYTES, truncate=True).decode("utf-8", errors="replace").replace("\r\n", "\n")
    front, body = split(text)
    name = str(front.get("name") or folder.name).strip()
    if not NAME.match(name):
        raise ValueError(f"{_label(path, root)}: the skill name {name!r} must be letters, digits, '_', '-' or '.'")
    described = front.get("description")
    if not isinstance(described, str) or not described.strip():
        first = next((ln.strip("# ").strip() for ln in body.splitlines() if ln.strip("-# \t")), "")
        described = first or name
    return Skill(name, one_line(described), folder, _label(path, root), scope)


def discover_skills(
    root: Path, user_dir: Path | None = None, refuse: Refuse | None = None
) -> tuple[list[Skill], list[str]]:
    """The skills (the user's first, then the workspace's, each name once) and why any file was skipped."""
    found: dict[str, Skill] = {}
    problems: list[str] = []
    real_root = os.path.realpath(root)
    bases: list[tuple[Path, Scope]] = [(user_dir or user_skills_dir(), "user")]
    bases += [(root / folder, "workspace") for folder in WORKSPACE_DIRS]
    for base, scope in bases:
        if not base.is_dir():
            continue
        workspace_root = real_root if scope == "workspace" else None
        if workspace_root is not None and not inside(base, workspace_root):
            problems.append(f"{_label(base, root)}: a link out of the workspace; its skills are not read")
            continue
        folders = sorted(p for p in base.iterdir() if (p / FILE).is_file())
        if len(folders) > MAX_SKILLS:
            problems.append(f"{_label(base, root)}: {len(folders)} skills, only the first {MAX_SKILLS} are read")
        for folder in folders[:MAX_SKILLS]:
            path = folder / FILE
            why = _problem(path, workspace_root, refuse, _label(path, root))
            if why is not None:
                problems.append(why)
                continue
            try:
                skill = _parse(path, folder, root, scope)
            except (OSError, ValueError, SandboxError) as exc:
                problems.append(str(exc))
                continue
            if skill.name in found:
                problems.append(f"{skill.label}: the skill {skill.name!r} is already {found[skill.name].label}")
                continue
            found[skill.name] = skill
    return list(found.values()), problems


def body_of(skill: Skill) -> str:
    """The instructions of SKILL.md (without its frontmatter), read now."""
    data = read_regular(skill.folder / FILE, MAX_BODY_BYTES, truncate=True)
    _front, body = split(data.decode("utf-8", errors="replace").replace("\r\n", "\n"))
    return body.strip()


def files_beside(skill: Skill) -> list[str]:
    """The files in the skill's folder besides SKILL.md (relative, `/`-separated), at most MAX_FILES; links and
    hidden names are skipped, and so is anything deeper than MAX_DEPTH."""
    out: list[str] = []
    top = skill.folder
    for here, dirs, files in os.walk(top, followlinks=False):
        depth = len(Path(here).relative_to(top).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and depth + 1 < MAX_DEPTH)
        for name in sorted(files):
            path = Path(here) / name
            if name.startswith(".") or path.is_symlink() or (here == str(top) and name == FILE):
                continue
            out.append(path.relative_to(top).as_posix())
            if len(out) >= MAX_FILES:
                return out
    return out


def read_beside(skill: Skill, rel: str, limit: int, refuse: Refuse | None = None) -> str:
    """A file of the skill's folder; SandboxError if `rel` leads out of it (a link, `..`), is not a regular file of
    its own, or a deny rule keeps it from the model."""
    top = os.path.realpath(skill.folder)
    path = Path(skill.folder) / rel
    if "\x00" in rel or not inside(path, top):
        raise SandboxError(f"'{rel}' is not a file of the skill {skill.name!r}")
    why = _problem(path, top, refuse if skill.scope == "workspace" else None, rel)
    if why is not None:
        raise SandboxError(why)
    data = read_regular(path, limit, truncate=True)
    return data.decode("utf-8", errors="replace")
