"""The budget gate before each round, and the numbers of the `usage_update` the loop sends."""

from __future__ import annotations

from dataclasses import dataclass

from .. import acp

# The answer's share of a small window: 1,500 tokens held back in a 4,096-token window would leave the
# conversation too little; a fifth still fits a few paragraphs or a tool call with its arguments.
RESERVE_FRACTION = 0.2
MIN_RESERVE = 256


def answer_reserve(window: int, min_remaining: int = 1500) -> int:
    """Tokens kept free for the answer: a fifth of the window, at most `context.min_remaining`."""
    return max(0, min(min_remaining, max(MIN_RESERVE, int(window * RESERVE_FRACTION))))


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
    """`prompt_tokens` is the whole estimated prompt: system prompt, history and tool definitions.

    The reserve is `answer_reserve(window, min_remaining)`: it scales down with small windows.
    """
    if window <= 0:
        raise ValueError(f"context window must be positive, got {window}")
    return Budget(window=window, used=max(0, prompt_tokens), min_remaining=answer_reserve(window, min_remaining))


def usage(used: int, size: int) -> acp.UsageUpdate:
    """The ACP `usage_update`: tokens in the context and the window size (used is clamped to the window)."""
    return acp.UsageUpdate(used=max(0, min(used, size)), size=max(0, size))
