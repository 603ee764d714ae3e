"""The errors an edit introduced: from the editor's language servers, or from a configured linter's output.

Both compare the file after the edit with the file before it. A diagnostic counts as the same problem when its
message, source and code are the same (lines move when an edit adds or removes lines), so only problems that are
new, or more frequent than before, are reported. Only errors from the editor (severity 1); every line a linter
prints, since a lint command is chosen to report what matters.
"""

from __future__ import annotations

import asyncio
import logging
import re
import shlex
from collections import Counter
from pathlib import Path

from ..client_contract import Diagnostic, DiagnosticsSnapshot
from ..config import ToolsConfig
from .base import ToolContext

log = logging.getLogger(__name__)

MAX_SHOWN = 5  # problems listed in a tool result; the rest are counted
MAX_MESSAGE = 200  # characters of one message
LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".rb": "ruby",
    ".lua": "lua",
    ".sh": "shell",
    ".bash": "shell",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".java": "java",
    ".kt": "kotlin",
    ".php": "php",
    ".cs": "csharp",
    ".swift": "swift",
}
_POSITION = re.compile(r":\d+(?::\d+)?(?=[:\s]|$)|\b(?:line|ln|col|column) \d+", re.IGNORECASE)


def language_of(path: Path) -> str | None:
    return LANGUAGES.get(path.suffix.lower())


def lint_command(settings: ToolsConfig, path: Path, rel: str) -> str | None:
    """The configured lint command for `path` (by language name, else by extension), `{file}` filled in quoted."""
    language = language_of(path)
    template = (settings.lint.get(language) if language else None) or settings.lint.get(path.suffix.lower())
    if not template:
        return None
    return template.replace("{file}", shlex.quote(rel))


def _key(d: Diagnostic) -> tuple[str, str | None, str | None]:
    return " ".join(d.message.split()), d.source, d.code


def introduced(before: list[Diagnostic], after: list[Diagnostic]) -> list[Diagnostic]:
    """Errors in `after` that `before` did not have (as many times), in file order."""
    seen = Counter(_key(d) for d in before if d.severity == 1)
    new: list[Diagnostic] = []
    for d in sorted((d for d in after if d.severity == 1), key=lambda d: (d.line, d.character)):
        if seen[_key(d)] > 0:
            seen[_key(d)] -= 1
        else:
            new.append(d)
    return new


def render_diagnostics(rel: str, items: list[Diagnostic]) -> str:
    """The compact note added to a tool result (empty when there is nothing new)."""
    if not items:
        return ""
    lines = []
    for d in items[:MAX_SHOWN]:
        origin = " ".join(x for x in (d.source, f"({d.code})" if d.code else None) if x)
        message = " ".join(d.message.split())[:MAX_MESSAGE]
        lines.append(f"{rel}:{d.line + 1}:{d.character + 1}: {message}" + (f" [{origin}]" if origin else ""))
    if len(items) > MAX_SHOWN:
        lines.append(f"... and {len(items) - MAX_SHOWN} more")
    count = f"{len(items)} new error" + ("s" if len(items) > 1 else "")
    return f"\n\nThe editor reports {count} after this change; fix them:\n" + "\n".join(lines)


def _normalized(line: str) -> str:
    return " ".join(_POSITION.sub(":_", line).split())


def introduced_lines(before: str, after: str) -> list[str]:
    """Lines of a linter's output after the edit that it did not print before (positions ignored: lines move)."""
    seen = Counter(_normalized(line) for line in before.splitlines() if line.strip())
    new = []
    for line in after.splitlines():
        if not line.strip():
            continue
        key = _normalized(line)
        if seen[key] > 0:
            seen[key] -= 1
        else:
            new.append(line.rstrip()[: MAX_MESSAGE + 80])
    return new


def render_lint(command: str, lines: list[str]) -> str:
    if not lines:
        return ""
    shown = lines[:MAX_SHOWN] + ([f"... and {len(lines) - MAX_SHOWN} more"] if len(lines) > MAX_SHOWN else [])
    return f"\n\n`{command}` reports new problems after this change; fix them:\n" + "\n".join(shown)


async def editor_snapshot(ctx: ToolContext, path: Path) -> DiagnosticsSnapshot | None:
    """The editor's diagnostics of `path` now, or None if it cannot say (no support, an error, no answer)."""
    source = ctx.client.features.diagnostics
    if source is None:
        return None
    try:
        return await asyncio.wait_for(source.file_diagnostics(path, None, 0), timeout=5)
    except Exception as exc:  # diagnostics are a help: an editor that fails to give them costs nothing else
        log.warning("the editor gave no diagnostics for %s: %s", path, exc)
        return None


async def editor_introduced(
    ctx: ToolContext, path: Path, rel: str, before: DiagnosticsSnapshot, timeout_s: float
) -> str:
    """The note on the errors the edit introduced, once the editor's diagnostics for `path` settled."""
    source = ctx.client.features.diagnostics
    if source is None:
        return ""
    try:
        after = await asyncio.wait_for(source.file_diagnostics(path, before.generation, timeout_s), timeout_s + 5)
    except Exception as exc:
        log.warning("the editor gave no diagnostics for %s after the edit: %s", path, exc)
        return ""
    return render_diagnostics(rel, introduced(before.diagnostics, after.diagnostics))
