"""Session titles, derived from the first user message (no background LLM call by default)."""

from __future__ import annotations


def title_from_prompt(text: str, limit: int = 60) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "New chat")
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
