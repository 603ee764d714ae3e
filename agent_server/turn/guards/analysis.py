"""Response analysis for small models: answers that announce work and stop, deflections, empty answers.

Pure functions over the assistant's text; the loop decides what to do with the verdict (seeds 002 and 003).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Verdict = Literal["ok", "incomplete", "deflection", "empty"]

# What an announced next step looks like, in the last sentences of an answer: a first-person future ("I will
# now…", "I'll…", "Let me…", "Let's…", "I'm going to…", "Next I need to…") or a present progressive of work in
# hand ("I'm now converting…", "Launching all of them now", "Reading `src/app.ts` now"), followed by an action.
_FUTURE = re.compile(
    r"(?:^|[\s(\"'“—-])(?:i\s*(?:will|'ll|’ll|shall|am going to|'m going to|’m going to|am about to|'m about to)"
    r"|let me|let's|let’s|lemme|i\s*(?:need|have|want) to|i\s*should"
    r"|(?:next|now|first|then),?\s*i(?:'ll| will| need to))"
    r"(?:\s+(?:now|first|next|then|also|quickly|just|go ahead and|start by|begin by|proceed to|try to|continue to|"
    r"try|still|carefully|immediately))*\s+(?P<verb>[a-z][a-z-]*)",
    re.IGNORECASE,
)
# Verbs after "I'll"/"let me" that end an answer rather than announce work.
_NOT_WORK = {
    "know",
    "be",
    "wait",
    "leave",
    "stop",
    "end",
    "pause",
    "hope",
    "note",
    "mention",
    "say",
    "add-on",
    "remember",
    "keep",
    "not",
    "never",
    "assume",
    "recommend",
    "suggest",
    "defer",
    "hand",
    "let",
}
_PROGRESSIVE = re.compile(
    r"(?:\bi(?:'m| am|’m)\s+(?:now\s+|currently\s+|also\s+)?(?P<verb>[a-z-]+ing)\b"
    r"|^(?:now\s+|alright,?\s+|ok(?:ay)?,?\s+)?(?P<lead>[a-z-]+ing)\b[^?]*\bnow\b)",
    re.IGNORECASE,
)
_NOT_PROGRESS = {
    "assuming", "thinking", "wondering", "hoping", "going", "being", "missing", "seeing", "noticing", "getting",
    "everything", "something", "nothing", "anything", "during", "string", "setting", "remaining", "pending",
}  # fmt: skip
# Sentences that hand the turn back to the user, even when they contain "I'll" or "let me".
_HAND_BACK = re.compile(
    r"\blet me know\b|\bif you(?:'d| would)? (?:like|want|need|prefer)\b|\bwould you like\b|\bfeel free\b"
    r"|\b(?:once|when|after|if) you\b|\bhappy to help\b|\bhope (?:this|that) helps\b|\bfor you\b",
    re.IGNORECASE,
)
# A sentence ends at . ! ? … followed by a space or the end, so "config.py" or "v1.4.2" do not end one.
_SENTENCE_END = re.compile(r"(?<=[.!?…:])\s+|\n+")
_CODE_BLOCK = re.compile(r"```.*?(?:```|$)", re.S)


def _sentences(text: str) -> list[str]:
    return [s.strip(" \t-*#>") for s in _SENTENCE_END.split(text) if s.strip(" \t-*#>")]


def _announces(sentence: str) -> bool:
    if _HAND_BACK.search(sentence) or sentence.rstrip().endswith("?"):
        return False
    for m in _FUTURE.finditer(sentence):
        if m["verb"].lower() not in _NOT_WORK:
            return True
    progressive = _PROGRESSIVE.search(sentence)
    if progressive:
        verb = (progressive["verb"] or progressive["lead"] or "").lower()
        return verb not in _NOT_PROGRESS
    return False


def announces_next_step(text: str) -> bool:
    """True when the answer ends by announcing work it did not do (the last two sentences, code blocks aside).

    An answer that ends with a code block, a question or a hand-back to the user ("let me know…") is finished.
    """
    stripped = text.strip()
    if stripped.endswith("```"):
        return False
    prose = _CODE_BLOCK.sub(" ", stripped)
    tail = _sentences(prose)[-2:]
    if not tail or tail[-1].endswith("?") or _HAND_BACK.search(tail[-1]):
        return False
    # "I'll explain: …" followed by the explanation is not an announcement; a colon counts only at the very end.
    return any(_announces(s) for s in tail if s is tail[-1] or not s.endswith(":"))


# "3 of 7 done", "remaining: …", "still need to"
_PROGRESS = re.compile(
    r"\b(\d+)\s*(?:of|/)\s*(\d+)\b[^\n]*\b(?:done|complete|completed|finished|so far)\b"
    r"|\bremaining\b\s*[:\-]|\bstill need to\b|\bremaining (?:ones|files|items|steps|tasks) (?:are|come) next\b",
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
    if announces_next_step(stripped):
        return Analysis("incomplete", "the answer announces an action but stops")
    match = _PROGRESS.search(tail)
    if match:
        if match.group(1) and match.group(2) and match.group(1) == match.group(2):
            return Analysis("ok")
        return Analysis("incomplete", "the answer reports partial progress")
    return Analysis("ok")
