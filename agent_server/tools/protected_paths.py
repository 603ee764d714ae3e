"""Paths whose content makes a tool run a program: a write to them always asks, whatever the allow rules say.

Writing `.git/config` (`core.fsmonitor`, filters, hooks) turns the next allowed `git status` into any program;
`.vscode/tasks.json`, `.envrc`, `.agent-server/commands/...` do the same for the editor, direnv or this agent.
An "always allow" for writes was given for code, not for these. The check is on the path as written and on the
path it resolves to (a link named `notes` that points at `.git` is `.git`), case-insensitively (macOS, Windows).
docs/security.md lists them.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

MAX_PATH_CHARS = 4096
# Folders anywhere in the workspace whose files configure a program that runs by itself.
PROTECTED_DIRS = frozenset(
    {
        ".git",  # config (fsmonitor, filters, pager), hooks, info/attributes
        ".vscode",  # tasks.json, settings.json (terminal profiles, interpreter paths), launch.json
        ".idea",  # run configurations, external tools
        ".zed",  # tasks and settings
        ".fleet",
        ".devcontainer",  # postCreateCommand
        ".direnv",
        ".husky",  # git hooks through npm
        ".agent-server",  # this agent's profiles, custom commands and hooks
        ".githooks",
        ".claude",  # another agent's settings and hooks (and skills)
        ".agents",  # skills (SKILL.md) this agent follows when loaded: a planted one steers every later session
        ".cursor",
    }
)
# File names anywhere in the workspace that name programs to run.
PROTECTED_FILES = frozenset(
    {
        ".git",  # a `gitdir:` file points git at another repository
        ".gitattributes",  # filter, diff and merge drivers
        ".gitmodules",  # submodule update commands
        ".gitconfig",
        ".envrc",  # direnv runs it on cd
        ".env.sh",
        ".agent-server.toml",  # this agent's workspace config
        ".nvim.lua",  # Neovim's exrc
        ".nvimrc",
        ".exrc",
        ".pre-commit-config.yaml",  # hooks run by git commit
        "lefthook.yml",
        ".lefthook.yml",
        ".code-workspace",
    }
)


def protected_reason(rel: str) -> str | None:
    """Why writing the workspace-relative `rel` may make a tool run a program, or None."""
    parts = [p.casefold() for p in PurePosixPath(rel.replace("\\", "/")).parts if p not in ("", ".", "/")]
    for part in parts[:-1]:
        if part in PROTECTED_DIRS:
            return f"files under '{part}/' configure programs that run by themselves"
    if parts and (parts[-1] in PROTECTED_DIRS or parts[-1] in PROTECTED_FILES or parts[-1].endswith(".code-workspace")):
        return f"'{parts[-1]}' configures programs that run by themselves"
    return None


def protected_path(workspace: Path, path: str, base: Path | None = None) -> str | None:
    """`protected_reason` for a path given to a tool or a command (relative to `base`, the workspace by default),
    checked as written and as it resolves through links. A path longer than any real one is asked about unread:
    resolving it would cost time on the event loop for nothing (PATH_MAX is 4,096 on Linux)."""
    if len(path) > MAX_PATH_CHARS:
        return f"a path of {len(path):,} characters is longer than any real path"
    base = Path(os.path.normpath(base or workspace))
    candidate = Path(os.path.expanduser(path)) if path.startswith("~") else base / path
    forms = [os.path.normpath(candidate)]
    try:
        forms.append(os.path.realpath(candidate))
    except (OSError, ValueError):
        pass
    roots = {os.path.normpath(workspace), os.path.realpath(workspace)}
    for form in forms:
        for root in roots:
            rel = os.path.relpath(form, root) if form == root or form.startswith(root.rstrip("/") + "/") else None
            if rel is not None:
                reason = protected_reason(rel)
                if reason:
                    return reason
    return protected_reason(path)
