"""Files through the client when it offers to read and write them itself (ACP `fs/*`).

Such a client shows the agent its unsaved buffers and records the agent's writes in its own undo history.
The disk stays the truth for everything else: commands run later must see what was written, so a write the
client did not put on disk is written here too.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from ..errors import SandboxError
from .base import ToolContext
from .sandbox import read_regular

log = logging.getLogger(__name__)
CLIENT_READ_LIMIT = 1_000_000  # bigger files are read from disk in slices, never shipped whole over stdio


def _disk_text(path: Path) -> str | None:
    try:
        return read_regular(path, CLIENT_READ_LIMIT).decode("utf-8")
    except (OSError, UnicodeDecodeError, SandboxError):
        return None


async def buffer_text(ctx: ToolContext, path: Path) -> str | None:
    """The client's text of `path` when it differs from the disk (an unsaved buffer), else None."""
    unsaved = ctx.client.open_document_text(path)
    if unsaved is not None:
        return unsaved
    files = ctx.client.features.files
    if files is None or not files.can_read:
        return None
    try:
        if not path.is_file() or path.stat().st_size > CLIENT_READ_LIMIT:
            return None
    except OSError:
        return None
    on_disk = await asyncio.to_thread(_disk_text, path)
    if on_disk is None:  # binary or unreadable: the tool's own disk path explains it
        return None
    try:
        text = await files.read_text_file(ctx.session_id, path)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the disk is a fine fallback
        log.warning("the client could not read %s: %s", path, exc)
        return None
    return None if text == on_disk else text


async def write_through_client(ctx: ToolContext, path: Path, text: str) -> bool:
    """Write `text` through the client; False when the caller must write the disk itself."""
    files = ctx.client.features.files
    if files is None or not files.can_write:
        return False
    try:
        await files.write_text_file(ctx.session_id, path, text)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.warning("the client could not write %s (writing it directly): %s", path, exc)
        return False
    return await asyncio.to_thread(_disk_text, path) == text
