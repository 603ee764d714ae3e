"""Stdout belongs to JSON-RPC in server mode (both faces): the real stdout is kept for the wire alone, and file
descriptor 1 is pointed at stderr, so a library's print or a child process that inherits stdout can never put a
stray byte between two messages.

The claim is made first thing in the entry point (`launch.py`), before any import that could start a thread or
print: claiming only once the server is built left a window of a second or more (the heavy imports, longer on a
busy machine) in which a stray write reached the client. Later calls return the same stream."""

from __future__ import annotations

import os
import sys
from typing import BinaryIO

_wire: BinaryIO | None = None


def claim_stdout() -> BinaryIO:
    """The original stdout as a binary stream for the wire; from now on fd 1 and `sys.stdout` go to stderr."""
    global _wire
    if _wire is None:
        _wire = os.fdopen(os.dup(1), "wb")
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    return _wire
