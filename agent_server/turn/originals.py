"""What each file held before the turn first changed it: kept as each changing call runs, so that a turn that left
the named tests worse than it found them can put them back (`guards/no_worse.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import SandboxError
from ..tools.sandbox import resolve

MAX_KEPT = 2_000_000  # bytes of one file kept (a larger one is not put back)


def keep_original(originals: dict[Path, bytes | None], roots: list[Path], arguments: dict[str, Any]) -> None:
    """Before a call that may change the file its `path` names: that file's bytes (None: it did not exist), once per
    turn; nothing for a call without a path or one outside the roots (the tool refuses it)."""
    path = arguments.get("path")
    if not isinstance(path, str):
        return
    try:
        real = resolve(roots, path)
    except (SandboxError, OSError, ValueError):
        return
    if real in originals:
        return
    try:
        originals[real] = real.read_bytes() if real.is_file() and real.stat().st_size <= MAX_KEPT else None
    except OSError:
        originals[real] = None
