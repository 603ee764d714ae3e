"""Recognizing a prompt that did not fit: silent truncation (Ollama) and the servers' overflow errors."""

from __future__ import annotations

import re

from ..errors import ContextOverflowError

# A reported prompt this close to num_ctx means the server filled the window (and probably cut the prompt).
AT_LIMIT = 0.95

_PATTERNS = re.compile(
    r"exceed_context_size_error|exceeds? (?:the )?(?:available )?context|context[_ ]length[_ ]exceeded"
    r"|maximum context length|context window|prompt is too long|too many tokens|input length exceeds",
    re.IGNORECASE,
)
_NUMBERS = (
    re.compile(r'"?n_prompt_tokens"?\s*[:=]\s*(?P<prompt>\d+).*?"?n_ctx"?\s*[:=]\s*(?P<ctx>\d+)', re.S),
    re.compile(r"maximum context length is (?P<ctx>\d+) tokens.*?(?:requested|you have) (?P<prompt>\d+)", re.S | re.I),
)


def is_overflow(usage_prompt_tokens: int, num_ctx: int | None, estimated: int) -> bool:
    """True when the server's prompt count sits at the num_ctx limit while our estimate is bigger than num_ctx."""
    if not num_ctx or usage_prompt_tokens <= 0:
        return False
    return usage_prompt_tokens >= num_ctx * AT_LIMIT and estimated > num_ctx


def is_overflow_error(message: str) -> bool:
    return bool(_PATTERNS.search(message))


def overflow_error(message: str) -> ContextOverflowError | None:
    """A `ContextOverflowError` (with the token counts when the message carries them), or None."""
    if not is_overflow_error(message):
        return None
    for pattern in _NUMBERS:
        m = pattern.search(message)
        if m:
            return ContextOverflowError(message, prompt_tokens=int(m["prompt"]), n_ctx=int(m["ctx"]))
    return ContextOverflowError(message)
