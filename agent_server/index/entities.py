"""Entities in a request beyond what `query.parse_query` pulls out: error messages and command names to match as
phrases, and which identifiers the request names most directly (code spans, dotted names, error types)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .query import ParsedQuery, parse_query
from .tokenize import STOP_WORDS

# `SomeError: the message` as printed by Python (and most languages) at the end of a traceback.
# The type either says it is an error or is module-qualified (`requests.exceptions.InvalidSchema: ...`), so prose
# like "Description: ..." does not count.
_ERROR_LINE = re.compile(r"(?m)^[ \t>E]*([\w.]{1,200}\.)?([A-Z]\w{0,100}):[ \t]+(.{8,300})$")
_ERROR_SUFFIX = ("Error", "Exception", "Warning")
_ERROR_TYPE = re.compile(r"\b([A-Z]\w{0,100}(?:Error|Exception|Warning))\b")
_CODE_SPAN = re.compile(r"`([^`\n]{1,120})`")
# Command-line options (`--collect-only`, `import-mode=importlib`): the code that defines them spells them out.
_OPTION = re.compile(
    r"(?<![\w-])--?([a-z][a-z0-9]{1,40}(?:-[a-z0-9]{1,40}){1,5})\b|(?<![\w-])([a-z][a-z0-9]{1,40}(?:-[a-z0-9]{1,40}){1,5})="
)
_CODE_LIKE = re.compile(r"[\w.]{1,120}(?:\(.{0,100}\))?")
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
    options: list[str] = field(default_factory=list)  # command-line options, without the dashes

    def phrase_queries(self) -> list[str]:
        """FTS5 phrase expressions (one per message), words only, so untrusted text cannot inject syntax."""
        out: list[str] = []
        for msg in self.messages[:MAX_PHRASES]:
            words = [w.lower() for w in _PHRASE_WORD.findall(msg)][:PHRASE_WORDS]
            content = [w for w in words if w not in STOP_WORDS]
            if len(words) >= 3 and len(content) >= 2:
                out.append('"' + " ".join(words) + '"')
        for option in self.options:
            out.append('"' + " ".join(_PHRASE_WORD.findall(option.lower())) + '"')
        return list(dict.fromkeys(out))


def analyze_request(text: str) -> ParsedQuery:
    """`parse_query` on text with its line ends normalized: a request pasted from a browser or a Windows tool has
    CRLF, and line-anchored patterns (version dumps, titles, error lines) must see the same lines either way."""
    q = parse_query(text.replace("\r\n", "\n").replace("\r", "\n"))
    # "pytest/raises" (from `pytest.raises`) contains "test" but names no test file: only test-like components count.
    q.mentions_test_path = any(_test_like(p) for p in q.paths) or any(_test_like(f.path) for f in q.frames)
    return q


def _test_like(path: str) -> bool:
    parts = [p for p in path.lower().replace("\\", "/").split("/") if p]
    if not parts:
        return False
    stem = parts[-1].rsplit(".", 1)[0] if "." in parts[-1] else parts[-1]
    return (
        any(p in ("test", "tests", "testing", "__tests__", "spec", "specs") for p in parts)
        or stem.startswith(("test_", "conftest"))
        or stem.endswith(("_test", ".test", ".spec"))
    )


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
    for m in _OPTION.finditer(text):
        e.options.append(m.group(1) or m.group(2))
    e.options = list(dict.fromkeys(e.options))[:MAX_PHRASES]
    e.error_types = list(dict.fromkeys(e.error_types))
    e.code_spans = list(dict.fromkeys(e.code_spans))
    strong: dict[str, None] = {}
    for span in e.code_spans:
        if not _CODE_LIKE.fullmatch(span):
            continue  # `pip list`, `platform darwin -- Python 3.7`: prose or output in backticks, not a name
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


_VENDOR_DIRS = frozenset(
    {"vendor", "vendored", "_vendor", "third_party", "thirdparty", "third-party", "3rdparty", "extern", "node_modules"}
)


def is_vendored_path(path: str) -> bool:
    """Another project's code copied in (`requests/packages/urllib3`, `pip/_vendor`, `third_party/`): a request
    about this project's behaviour is rarely fixed there, even when it names the vendored library's errors.
    `packages/` counts only below the top level (at the top it is a monorepo's own packages)."""
    dirs = path.lower().split("/")[:-1]
    return any(p in _VENDOR_DIRS for p in dirs) or "packages" in dirs[1:]
