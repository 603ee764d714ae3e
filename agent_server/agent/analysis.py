"""Response analysis for small models: answers that announce work and stop, deflections, empty answers.

Pure functions over the assistant's text; the loop decides what to do with the verdict (seeds 002 and 003).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Verdict = Literal["ok", "incomplete", "deflection", "empty"]

# "I will now…", "Next, I'll…", "Let me …" at the end of an answer: the model announced an action and stopped.
_ANNOUNCE = re.compile(
    r"(?:\b(?:i\s*(?:will|'ll|am going to|’ll)|let me|next,?\s*i(?:'ll| will)|now i(?:'ll| will)|i\s*need to)\s+"
    r"(?:now\s+)?(?:read|open|check|look|create|write|edit|update|run|search|find|list|fix|implement|add|modify|"
    r"start|continue|proceed|examine|inspect|review|apply|make|change|test|do)\b[^.!?\n]*[.:!]?\s*$)",
    re.IGNORECASE,
)
# "3 of 7 done", "remaining: …", "still need to"
_PROGRESS = re.compile(
    r"\b(\d+)\s*(?:of|/)\s*(\d+)\b[^\n]*\b(?:done|complete|completed|finished)\b"
    r"|\bremaining\b\s*[:\-]|\bstill need to\b",
    re.IGNORECASE,
)
_DEFLECT = re.compile(
    r"\b(?:i\s*(?:can(?:no|')t|cannot|am unable to|don't have (?:the )?(?:ability|access))|as an ai)\b[^.\n]*"
    r"\b(?:access|read|open|see|view|browse|run|execute|modify|edit|write)\b[^.\n]*\b(?:file|files|code|"
    r"repository|repo|filesystem|system|command|commands|terminal|workspace|directory)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Analysis:
    verdict: Verdict
    reason: str = ""


def analyze(text: str) -> Analysis:
    """Classify a final (tool-call-free) answer."""
    stripped = text.strip()
    if not stripped:
        return Analysis("empty", "the answer was empty")
    if _DEFLECT.search(stripped):
        return Analysis("deflection", "the model claimed it cannot use its tools")
    tail = stripped[-300:]
    if _ANNOUNCE.search(tail):
        return Analysis("incomplete", "the answer announces an action but stops")
    match = _PROGRESS.search(tail)
    if match:
        if match.group(1) and match.group(2) and match.group(1) == match.group(2):
            return Analysis("ok")
        return Analysis("incomplete", "the answer reports partial progress")
    return Analysis("ok")
