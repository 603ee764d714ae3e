"""What a request asks for, read from its words: a change, an answer in words, a removal, tests written.

In the `files` edit format this decides the frame of the prompt: a change request is told to answer with files,
anything else is answered in words (told to reply with a file, a small model copies the file back instead of
answering: "Say hello" got README.md back). Sentence by sentence: a sentence that starts with an edit verb (after
"please", "can you"...) or uses one in prose is a change; one that asks (a question word, a "?") or chats (a
greeting, "explain", "tell me") is not. Any change sentence makes the request a change; only questions and chat make
it an answer in words; anything else (a bug report: "days_between gives a negative number") stays a change, as it
always was. Pasted output (tracebacks, code) is not prose: `add_item` in a frame is no request to add anything.
"""

from __future__ import annotations

import re

_VERBS = (
    "fix|implement|write|change|add|make|create|update|refactor|rename|remove|delete|solve|complete|edit|replace|"
    "convert|rewrite|correct|improve|modify|adjust|extend|patch|repair|insert|append|move|split|merge|support|"
    "handle|port|migrate|optimi[sz]e|generate|build|finish|set|use|return|raise|apply|drop"
)
# An edit verb as a word of its own (fixes, fixed, fixing; adds...), never a prefix of an identifier (add_item).
EDIT_VERB = re.compile(rf"(?<![\w.])(?:{_VERBS})(?:e?s|e?d|ing)?(?![\w(])", re.I)
LEADS = (
    r"(?:(?:please|pls|now|then|also|and|so|ok(?:ay)?|can you|could you|would you|will you|kindly|just|hi|hello|hey|"
    r"thanks|thank you)[\s,!]+)*"
)
EDIT_START = re.compile(rf"^{LEADS}(?:{_VERBS})\b", re.I)
WH_START = re.compile(r"^(?:what|why|how|where|which|who|whom|whose|when)\b", re.I)
CHAT_START = re.compile(
    rf"^{LEADS}(?:hi|hello|hey|thanks|thank you|good (?:morning|afternoon|evening)|say|tell|explain|describe|"
    r"summari[sz]e|list|show|answer|look|read|review|walk me)\b",
    re.I,
)
# "Look at leap.py and fix it": a second imperative in the same sentence is the request.
COORDINATED = re.compile(rf"\b(?:and|then)\s+{LEADS}(?:{_VERBS})\b", re.I)
NEGATED_EDIT = re.compile(
    r"\b(?:don'?t|do not|without|never|no need to)\s+(?:\w+\s+){0,2}?(?:change|edit|modify|touch|write|fix)", re.I
)
# Lines of pasted output or code, not prose: traceback frames, pytest's markers, indented code, prompts, fences.
NOT_PROSE = re.compile(
    r'^(?:\s{2,}|\t|File "|Traceback|E\s|>\s|[=_-]{3,}|\$ |>>> |```|FAILED |ERROR |PASSED |\S+\.\w+:\d+|\S+::\S)'
)
SENTENCE = re.compile(r"(?<=[.?!])\s+|\n+")

REMOVAL = re.compile(r"\b(remov|delet|drop|strip|get rid|eliminat|clean ?up|trim|prun)\w*", re.I)

# Writing tests: a verb that makes or changes something, as asked (at the start of a clause: "I added a test", "how
# it needs to change, see the test suite" ask nothing), then
# in the same clause a test or a test file as its object; never the tests that must pass ("fix the code so the tests
# pass", "make tests/test_x.py pass": those judge the change). Paths are taken whole (possessive), so a shorter match
# cannot dodge the check of the word after them.
TEST_VERBS = r"add|write|create|extend|update|adjust|modify|change|rewrite|cover|generate|include|put|expand|edit"
WANTS_TESTS = re.compile(
    rf"(?:^{LEADS}|\b(?:and|then|also|plus|please|(?:you|me|us) to)\s+|[,:;]\s*)(?:{TEST_VERBS})(?:ing)?\b"
    r"(?:[^.?!;\n]|\.(?=\w)){0,80}?(?<![\w/])"
    r"(?:(?:unit\s+)?tests?(?![\w/])|test\s+cases?\b|test_[\w.]++|tests?/[\w./-]++|\w*_test\.\w++)"
    r"(?!\s+(?:pass|fail|must|should|show|run|still|is|are|expect|now)\w*\b)",
    re.I,
)


def _prose(text: str) -> list[str]:
    """The request's sentences of prose (pasted output and code left out)."""
    return [s.strip() for s in SENTENCE.split(text) if s.strip() and not NOT_PROSE.match(s)]


def kind(sentence: str) -> str:
    """ "edit", "ask" (a question or chat: answered in words) or "other" (a statement, a bug report)."""
    if NEGATED_EDIT.search(sentence):
        return "ask"
    if EDIT_START.match(sentence) or COORDINATED.search(sentence):
        return "edit"
    if CHAT_START.match(sentence) or WH_START.match(sentence):
        return "ask"
    asks = sentence.endswith("?")
    if EDIT_VERB.search(sentence):
        return "edit" if not asks or re.match(r"^(?:can|could|would|will) you\b", sentence, re.I) else "ask"
    return "ask" if asks else "other"


def wants_edit(text: str) -> bool:
    """A request that asks for a change (see the module's docstring); a request of pasted output alone is one."""
    kinds = [kind(s) for s in _prose(text)]
    if "edit" in kinds:
        return True
    return "ask" not in kinds


def wants_removal(text: str) -> bool:
    """A request to take something out: a whole-file answer shorter than the file is then the change itself, not an
    excerpt of it to merge."""
    return bool(REMOVAL.search(text))


def wants_tests(text: str) -> bool:
    """A request to write or change tests ("add a test in tests/test_calc.py", "write tests for parse"): its test
    files are the user's to change. Tests that must pass are the judge of the change, never part of it."""
    return any(WANTS_TESTS.search(s) and not NEGATED_EDIT.search(s) for s in _prose(text))


GREETING = re.compile(
    rf"^{LEADS}(?:hi|hello|hey|yo|thanks|thank you|cheers|bye|good (?:morning|afternoon|evening|night)|say \w+|"
    r"who are you|how are you)\b",
    re.I,
)


def is_chat(text: str) -> bool:
    """A greeting or thanks, nothing else ("Say hello", "thanks!"): no file is worth showing for it."""
    sentences = _prose(text)
    return bool(sentences) and all(GREETING.match(s) for s in sentences) and not wants_edit(text)
