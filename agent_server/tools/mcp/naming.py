"""Model-safe tool names: `server__tool` from `[A-Za-z0-9_-]`, at most 64 characters, unique."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection

MAX_NAME = 64
SEPARATOR = "__"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def _clean(part: str) -> str:
    return _UNSAFE.sub("_", part).strip("_") or "x"


def exposed_name(server: str, tool: str, taken: Collection[str] = ()) -> str:
    """The name offered to the model; a short hash keeps long or colliding names distinct."""
    base = f"{_clean(server)}{SEPARATOR}{_clean(tool)}"
    if len(base) <= MAX_NAME and base not in taken:
        return base
    digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()
    for width in range(6, 41):
        suffix = "_" + digest[:width]
        name = base[: MAX_NAME - len(suffix)] + suffix
        if name not in taken:
            return name
    raise ValueError(f"cannot find a unique name for {server}.{tool}")
