"""Rules files: the user's and the repository's standing instructions, found where each peer keeps them.

Order (documented in docs/rules-and-commands.md; later files are more specific and come later in the prompt, so
they win where two disagree; the budget keeps the earlier ones first):

1. the user's: `<config dir>/AGENTS.md`, then `<config dir>/rules/*.md` (by name);
2. the workspace root's: `AGENTS.md`, `CLAUDE.md`, `CONVENTIONS.md`, `.github/copilot-instructions.md`,
   `.cursorrules`, `.cursor/rules/*.mdc`, `.clinerules` (a file, or a folder of `*.md`), `.continue/rules/*.md`.

Scoped rules are not in the system prompt: an `AGENTS.md` (or `CLAUDE.md`) in a subfolder applies to the files
under that folder, and a `.mdc` / `.continue` rule with `globs` (and no `alwaysApply: true`) to the files they
match; they are attached to the first tool result of the session that touches such a file (`nested.py`).
The same file reached twice (a `CLAUDE.md` symlinked to `AGENTS.md`, or equal content) is read once.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import platformdirs

from ..errors import SandboxError
from ..tools.sandbox import read_regular
from .frontmatter import globs_of, split

MAX_FILE_BYTES = 64_000  # the budget cuts far below this; a huge file is not read whole only to be cut
MAX_FOLDER_FILES = 200  # per rules folder (by name): a repository of thousands is not held in memory
ROOT_FILES = ("AGENTS.md", "CLAUDE.md", "CONVENTIONS.md", ".github/copilot-instructions.md", ".cursorrules")
NESTED_NAMES = ("AGENTS.md", "CLAUDE.md")
RULE_DIRS = ((".cursor/rules", "*.mdc"), (".clinerules", "*.md"), (".continue/rules", "*.md"))

Scope = Literal["user", "workspace"]


@dataclass(frozen=True)
class RuleFile:
    path: Path
    label: str
    """How the file is named to the model and the user: workspace-relative, or `~/…` for the user's."""
    scope: Scope
    body: str
    folder: str = ""
    """A nested AGENTS.md: the workspace-relative folder whose files it applies to."""
    globs: tuple[str, ...] = ()
    """A scoped `.mdc` / `.continue` rule: the workspace-relative globs of the files it applies to."""

    @property
    def scoped(self) -> bool:
        return bool(self.folder or self.globs)


def user_rules_dir() -> Path:
    return Path(platformdirs.user_config_dir("agent-server"))


def _read(path: Path) -> str | None:
    try:
        data = read_regular(path, MAX_FILE_BYTES, truncate=True)  # never blocks on a FIFO swapped in after a check
    except (OSError, SandboxError):
        return None
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return text if text.strip() else None


def _label(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        home = Path.home()
        try:
            return "~/" + path.relative_to(home).as_posix()
        except ValueError:
            return str(path)


def _inside(path: Path, root: Path) -> bool:
    """A repository's rules file that is a link out of the workspace is not read (it could name any file)."""
    try:
        path.resolve().relative_to(root.resolve())
    except (OSError, ValueError):
        return False
    return True


def candidates(root: Path, user_dir: Path | None = None) -> list[tuple[Path, Scope]]:
    """Every rules file that exists, in the documented order (cheap: a few stats and three small listings)."""
    user_dir = user_dir or user_rules_dir()
    out: list[tuple[Path, Scope]] = []
    if (user_dir / "AGENTS.md").is_file():
        out.append((user_dir / "AGENTS.md", "user"))
    if (user_dir / "rules").is_dir():
        out += [(p, "user") for p in sorted((user_dir / "rules").glob("*.md"))[:MAX_FOLDER_FILES] if p.is_file()]
    for name in ROOT_FILES:
        if (root / name).is_file():
            out.append((root / name, "workspace"))
    for folder, pattern in RULE_DIRS:
        base = root / folder
        if base.is_file():  # `.clinerules` may be a single file
            out.append((base, "workspace"))
        elif base.is_dir():
            out += [(p, "workspace") for p in sorted(base.glob(pattern))[:MAX_FOLDER_FILES] if p.is_file()]
    return [(p, s) for p, s in out if s == "user" or _inside(p, root)]


def signature(root: Path, user_dir: Path | None = None) -> tuple[tuple[str, int, int], ...]:
    """What the rules were built from: any file added, removed or changed gives another signature."""
    sig: list[tuple[str, int, int]] = []
    for path, _scope in candidates(root, user_dir):
        try:
            stat = path.stat()
        except OSError:
            continue
        sig.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(sig)


def _parse(path: Path, scope: Scope, root: Path, text: str) -> RuleFile:
    globs: tuple[str, ...] = ()
    if path.suffix in (".mdc", ".md") and text.startswith("---"):
        front, text = split(text)
        if front.get("alwaysApply") is not True:
            globs = globs_of(front.get("globs"))
    return RuleFile(path=path, label=_label(path, root), scope=scope, body=text.strip(), globs=globs)


def discover(root: Path, user_dir: Path | None = None) -> list[RuleFile]:
    """The rules files of `root` and the user, in order, each once; scoped ones (`globs`) are included."""
    seen_paths: set[Path] = set()
    seen_text: set[str] = set()
    out: list[RuleFile] = []
    for path, scope in candidates(root, user_dir):
        real = path.resolve()
        text = _read(path)
        if text is None or real in seen_paths:
            continue
        digest = hashlib.sha256(text.strip().encode()).hexdigest()
        if digest in seen_text:
            continue
        seen_paths.add(real)
        seen_text.add(digest)
        out.append(_parse(path, scope, root, text))
    return out


def nested_for(root: Path, rel: str) -> list[RuleFile]:
    """The AGENTS.md / CLAUDE.md of every folder between the root (excluded) and `rel` (a file or a folder)."""
    parts = Path(rel).parts
    out: list[RuleFile] = []
    seen: set[str] = set()
    for depth in range(1, len(parts) + 1):
        folder = Path(*parts[:depth])
        base = root / folder
        if not base.is_dir():
            break
        for name in NESTED_NAMES:
            path = base / name
            if not path.is_file() or not _inside(path, root):
                continue
            text = _read(path)
            if text is None:
                continue
            digest = hashlib.sha256(text.strip().encode()).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            out.append(
                RuleFile(
                    path=path,
                    label=(folder / name).as_posix(),
                    scope="workspace",
                    body=text.strip(),
                    folder=folder.as_posix(),
                )
            )
    return out
