"""Turn filesystem events (watchfiles) into index updates."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from watchfiles import Change, awatch

from .scanner import ALWAYS_SKIP_DIRS


def _interesting(change: Change, path: str) -> bool:
    return not any(part in ALWAYS_SKIP_DIRS for part in Path(path).parts)


async def watch_tree(
    root: Path,
    on_change: Callable[[Path], Awaitable[None]],
    on_folder: Callable[[Path], Awaitable[None]],
    on_delete: Callable[[Path], Awaitable[None]],
    stop: asyncio.Event,
) -> None:
    """Call `on_change` for every file event under `root`, `on_folder` for a folder that appeared (moved or copied
    in: its files bring no events of their own), `on_delete` for what is gone, until `stop` is set."""
    async for changes in awatch(root, stop_event=stop, watch_filter=_interesting, debounce=50, step=20):
        for change, raw in sorted(changes, key=lambda c: c[1]):
            path = Path(raw)
            # A file may be gone again by the time we look; its state now is what counts.
            kind = None if change == Change.deleted else await asyncio.to_thread(_kind, path)
            if kind == "file":
                await on_change(path)
            elif kind == "folder":
                if change == Change.added:  # (a folder's other events say nothing of its files)
                    await on_folder(path)
            else:
                await on_delete(path)


def _kind(path: Path) -> str | None:
    if path.is_file():
        return "file"
    return "folder" if path.is_dir() and not path.is_symlink() else None
