"""The context window: how big it is, and which `num_ctx` to ask Ollama for."""

from __future__ import annotations

from ..llm.base import ModelInfo

NUM_CTX_LADDER = (4096, 8192, 16384, 32768, 65536, 131072)
DEFAULT_WINDOW = 4096  # Ollama's own default when nothing is known: assume the worst


def context_window(info: ModelInfo | None, override: int | None = None) -> int:
    """`llm.context_length` wins, then what the server reported, then a conservative default."""
    if override:
        return override
    if info is not None and info.context_length:
        return info.context_length
    return DEFAULT_WINDOW


def choose_num_ctx(model_max: int | None, wanted: int, current: int | None = None) -> int:
    """The smallest ladder rung that holds `wanted`, capped at the model's maximum, never below `current`.

    Rungs keep the value stable across rounds (a changed num_ctx makes Ollama reload the model), and `current`
    makes it sticky: once a session has grown to a size it never shrinks back.
    """
    if wanted <= 0:
        raise ValueError(f"wanted context must be positive, got {wanted}")
    rung = next((r for r in NUM_CTX_LADDER if r >= wanted), NUM_CTX_LADDER[-1])
    if wanted > rung:  # bigger than the ladder: ask for exactly what is needed
        rung = wanted
    if model_max:
        rung = min(rung, model_max)
    if current:
        rung = max(rung, min(current, model_max) if model_max else current)
    return rung
