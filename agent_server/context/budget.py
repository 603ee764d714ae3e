"""The budget gate before each round, and the numbers of the `usage_update` the loop sends."""

from __future__ import annotations

from dataclasses import dataclass

from .. import acp


@dataclass(frozen=True)
class Budget:
    window: int
    used: int
    min_remaining: int

    @property
    def remaining(self) -> int:
        return self.window - self.used

    @property
    def ok(self) -> bool:
        """At least `min_remaining` tokens are left for the model's answer."""
        return self.remaining >= self.min_remaining

    @property
    def fraction(self) -> float:
        return self.used / self.window if self.window else 1.0


def check_budget(prompt_tokens: int, window: int, min_remaining: int = 1500) -> Budget:
    """`prompt_tokens` is the whole estimated prompt: system prompt, history and tool definitions."""
    if window <= 0:
        raise ValueError(f"context window must be positive, got {window}")
    return Budget(window=window, used=max(0, prompt_tokens), min_remaining=min_remaining)


def usage(used: int, size: int) -> acp.UsageUpdate:
    """The ACP `usage_update`: tokens in the context and the window size (used is clamped to the window)."""
    return acp.UsageUpdate(used=max(0, min(used, size)), size=max(0, size))
