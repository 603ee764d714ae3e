"""ACP prompt content blocks -> the text of a user message."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from .. import acp
from ..errors import SandboxError, ToolError
from ..tools.sandbox import read_regular, resolve

# A linked file is read into the prompt up to this size; the model can read_file the rest (small windows first).
LINKED_FILE_CHARS = 12000


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def _display(uri: str, roots: list[Path]) -> str:
    path = uri_to_path(uri)
    for root in roots:
        try:
            return Path(path).relative_to(root).as_posix()
        except ValueError:
            continue
    return path


def prompt_text(blocks: list[acp.ContentBlock], roots: list[Path]) -> str:
    """Text blocks as they are; resources as fenced excerpts with their path and range; links as references."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, acp.TextContent):
            parts.append(block.text)
        elif isinstance(block, acp.EmbeddedResource):
            res = block.resource
            name = _display(res.uri, roots)
            fragment = urlparse(res.uri).fragment
            where = f" ({fragment})" if fragment else ""
            meta = block.meta or {}
            rng = meta.get("range") if isinstance(meta, dict) else None
            if isinstance(rng, dict) and "start" in rng:
                start = int(rng["start"].get("line", 0)) + 1
                end_pos = rng.get("end") or rng["start"]
                end = int(end_pos.get("line", start - 1)) + 1
                where = f" (lines {start}-{end})"
            if isinstance(res, acp.TextResourceContents):
                parts.append(f"From `{name}`{where}:\n```\n{res.text}\n```")
            else:
                parts.append(f"[binary resource `{name}` omitted]")
        elif isinstance(block, acp.ResourceLink):
            parts.append(_linked(block, roots))
        # Image blocks are not text: context_sources/images.py checks them and decides whether the model sees them.
    return "\n\n".join(p for p in parts if p)


def _linked(link: acp.ResourceLink, roots: list[Path]) -> str:
    """A linked workspace file with its text (as the editor would have embedded it); a reference otherwise."""
    name = _display(link.uri, roots)
    if urlparse(link.uri).scheme not in ("file", ""):
        return f"(see `{name}`)"
    try:
        path = resolve(roots, uri_to_path(link.uri), must_exist=True)
        if not path.is_file():
            return f"(see `{name}`)"
        raw = read_regular(path, LINKED_FILE_CHARS * 4 + 4, truncate=True)  # never a FIFO or a device
        # A read that stopped inside a character loses only that character; a NUL byte means a binary file.
        full = len(raw) <= LINKED_FILE_CHARS * 4
        text = raw.decode("utf-8", errors="strict" if full else "ignore") if b"\0" not in raw else None
    except (ToolError, SandboxError, OSError, UnicodeDecodeError):
        text = None
    if text is None:
        return f"(see `{name}`)"
    if len(text) > LINKED_FILE_CHARS:
        cut = text[:LINKED_FILE_CHARS].rsplit("\n", 1)[0]
        return f"From `{name}` (first {cut.count(chr(10)) + 1} lines; read_file for the rest):\n```\n{cut}\n```"
    return f"From `{name}`:\n```\n{text}\n```"


def display_text(blocks: list[acp.ContentBlock], roots: list[Path]) -> str:
    """What the user typed, with attached resources as short tags (for replays), e.g. "[calc.py lines 5-6] why?"."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, acp.TextContent):
            parts.append(block.text)
        elif isinstance(block, acp.EmbeddedResource | acp.ResourceLink):
            uri = block.resource.uri if isinstance(block, acp.EmbeddedResource) else block.uri
            name = _display(uri, roots)
            rng = (block.meta or {}).get("range") if isinstance(block.meta, dict) else None
            if isinstance(rng, dict) and "start" in rng:
                end = rng.get("end") or rng["start"]
                name += f" lines {int(rng['start'].get('line', 0)) + 1}-{int(end.get('line', 0)) + 1}"
            parts.append(f"[{name}]")
    return " ".join(p for p in parts if p)
