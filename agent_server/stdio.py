"""Stdout belongs to JSON-RPC in server mode (both faces): the real stdout is kept for the wire alone, and file
descriptor 1 is pointed at stderr, so a library's print or a child process that inherits stdout can never put a
stray byte between two messages."""

from __future__ import annotations

import os
import sys
from typing import BinaryIO


def claim_stdout() -> BinaryIO:
    """The original stdout as a binary stream for the wire; from now on fd 1 and `sys.stdout` go to stderr."""
    wire = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return wire
