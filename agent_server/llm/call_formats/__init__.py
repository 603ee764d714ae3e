"""Call formats beyond the JSON and tag shapes of `text_tools.py`, one module each: pythonic lists (Llama 3.2, LFM2),
Mistral's `[TOOL_CALLS]`, gpt-oss's Harmony channels. `FORMATS` is what `text_tools.recover_tool_calls` and
`call_shaped` run first; `HELD` the blocks streamed text is held back for (`turn/guards/call_holdback.py`)."""

from __future__ import annotations

from .base import CallFormat, Found
from .harmony import Harmony
from .mistral import Mistral
from .pythonic import Pythonic

FORMATS: tuple[CallFormat, ...] = (Harmony(), Mistral(), Pythonic())
HELD: dict[str, str] = {o: c for f in FORMATS for o, c in f.held.items()}

__all__ = ["FORMATS", "HELD", "CallFormat", "Found"]
