"""Entities in a request beyond what `query.parse_query` pulls out: error messages and command names to match as
phrases, and which identifiers the request names most directly (code spans, dotted names, error types)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .query import ParsedQuery
from .tokenize import STOP_WORDS

# `SomeError: the message` as printed by Python (and most languages) at the end of a traceback.
# The type either says it is an error or is module-qualified (`requests.exceptions.InvalidSchema: ...`), so prose
# like "Description: ..." does not count.
_ERROR_LINE = re.compile(r"(?m)^[ \t>E]*([\w.]{1,200}\.)?([A-Z]\w{0,100}):[ \t]+(.{8,300})$")
_ERROR_SUFFIX = ("Error", "Exception", "Warning")
_ERROR_TYPE = re.compile(r"\b([A-Z]\w{0,100}(?:Error|Exception|Warning))\b")
_CODE_SPAN = re.compile(r"`([^`\n]{1,120})`")
_PHRASE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
MAX_PHRASES = 4
PHRASE_WORDS = 6  # enough to be specific; the tail of a message is often the interpolated value


@dataclass
class Entities:
    """What a request names, strongest first within each list."""

    code_spans: list[str] = field(default_factory=list)
    error_types: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)  # phrases to look for verbatim in code (FTS5 phrase queries)
    strong_names: list[str] = field(default_factory=list)  # identifiers from code spans, dotted names, error types

    def phrase_queries(self) -> list[str]:
        """FTS5 phrase expressions (one per message), words only, so untrusted text cannot inject syntax."""
        out: list[str] = []
        for msg in self.messages[:MAX_PHRASES]:
            words = [w.lower() for w in _PHRASE_WORD.findall(msg)][:PHRASE_WORDS]
            content = [w for w in words if w not in STOP_WORDS]
            if len(words) >= 3 and len(content) >= 2:
                out.append('"' + " ".join(words) + '"')
        return list(dict.fromkeys(out))


def extract_entities(q: ParsedQuery) -> Entities:
    """Error messages, error types and code spans of the request in `q.text`."""
    text = q.text
    e = Entities()
    for m in _ERROR_LINE.finditer(text):
        if not m.group(1) and not m.group(2).endswith(_ERROR_SUFFIX):
            continue
        e.error_types.append(m.group(2))
        # Interpolated values (quotes, numbers, paths) differ at run time; keep the fixed lead-in of the message.
        lead = re.split(r"['\"{}<>()\[\]0-9/\\]", m.group(3), maxsplit=1)[0]
        if len(lead.split()) >= 3:
            e.messages.append(lead.strip())
    for m in _ERROR_TYPE.finditer(text):
        e.error_types.append(m.group(1))
    for m in _CODE_SPAN.finditer(text):
        span = m.group(1).strip()
        if span:
            e.code_spans.append(span)
    e.error_types = list(dict.fromkeys(e.error_types))
    e.code_spans = list(dict.fromkeys(e.code_spans))
    strong: dict[str, None] = {}
    for span in e.code_spans:
        for w in re.findall(r"[A-Za-z_]\w+", span):
            if w.lower() not in STOP_WORDS and len(w) > 2:
                strong[w] = None
    for name in e.error_types:
        strong[name] = None
    e.strong_names = list(strong)
    return e


_EXAMPLE_DIRS = frozenset({"doc", "docs", "example", "examples", "bench", "benchmark", "benchmarks", "demo", "demos"})


def is_example_path(path: str) -> bool:
    """Code that ships as documentation, examples or benchmarks rather than as the project itself."""
    return any(p in _EXAMPLE_DIRS for p in path.lower().split("/")[:-1])
