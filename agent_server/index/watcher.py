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
    on_delete: Callable[[Path], Awaitable[None]],
    stop: asyncio.Event,
) -> None:
    """Call `on_change`/`on_delete` for every file event under `root` until `stop` is set."""
    async for changes in awatch(root, stop_event=stop, watch_filter=_interesting, debounce=50, step=20):
        for change, raw in sorted(changes, key=lambda c: c[1]):
            path = Path(raw)
            # A file may be gone again by the time we look; its state now is what counts.
            if change == Change.deleted or not await asyncio.to_thread(path.is_file):
                await on_delete(path)
            else:
                await on_change(path)
