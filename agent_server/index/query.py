"""Query processing: pull stack-trace frames, file paths and identifiers out of free text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..tools.search_query import VERSION_LINE, WORD
from .tokenize import STOP_WORDS, split_identifier

_EXT = (
    r"(?:py|pyi|js|jsx|mjs|cjs|ts|tsx|go|rs|java|kt|c|h|cc|cpp|cxx|hpp|hh|lua|rb|php|cs|swift|scala|sh"
    r"|toml|json|ya?ml|md|rst|txt|cfg|ini)"
)
# Every pattern below runs on untrusted text of up to MAX_QUERY_CHARS: each may only start at a token boundary
# and scan a bounded stretch from there, so a query costs linear time (a pasted log of "a.a.a…" or "at at at…"
# used to cost quadratic time, minutes for 100k characters, on the event loop).
_PY_FRAME = re.compile(r'File "([^"\n]{1,1000})", line (\d{1,9})(?:, in ([\w<>]{1,200}))?')
_JAVA_FRAME = re.compile(r"\bat ([\w.$]{1,500})\.([\w$<>]{1,200})\(([\w$]{1,200}\.(?:java|kt|scala)):(\d{1,9})\)")
_JS_FRAME = re.compile(
    r"\bat (?:([\w.$<>\[\] ]{1,120}?) \()?((?:file://)?[^\s()]{1,500}?\.(?:js|jsx|mjs|cjs|ts|tsx)):(\d{1,9})(?::\d+)?\)?"
)
_LOC = re.compile(r"(?<![\w.\-])((?:[\w.\-]{1,255}/){0,40}[\w.\-]{1,255}\." + _EXT + r")(?::(\d{1,9}))?(?::\d+)?\b")
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_BACKTICK = re.compile(r"`([^`\n]{1,80})`")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_TEST_WORDS = frozenset({"test", "tests", "testing", "spec", "fixture", "fixtures"})
_DOC_WORDS = frozenset({"doc", "docs", "documentation", "readme", "changelog", "tutorial", "guide", "rst", "markdown"})
_DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc")


@dataclass(frozen=True)
class Frame:
    """One stack-trace frame: a path as printed (maybe absolute or outside the workspace), line, function."""

    path: str
    line: int | None
    function: str | None


@dataclass
class ParsedQuery:
    text: str
    frames: list[Frame] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    identifiers: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    title: list[str] = field(default_factory=list)  # lowercase words of the first line (an issue's title)
    mentions_tests: bool = False  # the word "test" and friends: common in bug reports, so a weak hint
    mentions_test_path: bool = False  # a test file or directory by path: the user wants tests
    mentions_docs: bool = False

    def fts_terms(self) -> list[str]:
        """Distinct lowercase terms for the FTS5 OR query: identifiers (whole and split) first, then words."""
        terms: dict[str, None] = {}
        for ident in self.identifiers:
            terms[ident.lower()] = None
            for part in split_identifier(ident):
                if len(part) > 1 and part not in STOP_WORDS:
                    terms[part] = None
        for path in self.paths:
            for piece in re.split(r"[/\\.\-]+", path):
                if len(piece) > 1 and piece.lower() not in STOP_WORDS:
                    terms[piece.lower()] = None
        for word in self.words:
            terms[word.lower()] = None
        return list(terms)

    def priority_terms(self) -> set[str]:
        """Terms that keep their place however common: identifiers, path pieces and title words."""
        out = {i.lower() for i in self.identifiers} | set(self.title)
        for ident in self.identifiers:
            out.update(split_identifier(ident))
        for path in self.paths:
            out.update(p.lower() for p in re.split(r"[/\\.\-]+", path) if p)
        return out


def _is_code_identifier(word: str) -> bool:
    return "_" in word.strip("_") or (any(c.isupper() for c in word[1:]) and any(c.islower() for c in word))


def parse_query(text: str) -> ParsedQuery:
    """Split a query into frames, paths, identifiers and plain words."""
    q = ParsedQuery(text=text)
    text = VERSION_LINE.sub("", text)
    first = next((line for line in text.splitlines() if line.strip()), "")
    q.title = [w.lower() for w in WORD.findall(first) if len(w) > 2 and w.lower() not in STOP_WORDS]
    for m in _PY_FRAME.finditer(text):
        q.frames.append(Frame(m.group(1), int(m.group(2)), m.group(3)))
    for m in _JAVA_FRAME.finditer(text):
        pkg = m.group(1).rsplit(".", 1)[0].replace(".", "/")
        q.frames.append(Frame(f"{pkg}/{m.group(3)}", int(m.group(4)), m.group(2)))
    for m in _JS_FRAME.finditer(text):
        func = (m.group(1) or "").split(".")[-1].strip() or None
        q.frames.append(Frame(m.group(2).removeprefix("file://"), int(m.group(3)), func))
    seen_frames = {f.path for f in q.frames}
    for m in _LOC.finditer(text):
        path = m.group(1)
        if m.group(2) and path not in seen_frames:
            q.frames.append(Frame(path, int(m.group(2)), None))
            seen_frames.add(path)
        elif "/" in path or "." in path:
            q.paths.append(path)
    idents: dict[str, None] = {}
    for m in _BACKTICK.finditer(text):
        for w in WORD.findall(m.group(1)):
            if len(w) > 1 and w.lower() not in STOP_WORDS:
                idents[w] = None
    for m in _DOTTED.finditer(text):
        dotted = m.group(0)
        parts = dotted.split(".")
        if all(p.islower() or _is_code_identifier(p) for p in parts) and not re.fullmatch(r"[\w.]+\." + _EXT, dotted):
            q.paths.append("/".join(p for p in parts))
        for p in parts:
            if len(p) > 1 and p.lower() not in STOP_WORDS:
                idents[p] = None
    for m in _CALL.finditer(text):
        if m.group(1).lower() not in STOP_WORDS:
            idents[m.group(1)] = None
    for f in q.frames:
        if f.function and not f.function.startswith("<"):
            idents[f.function] = None
    words: dict[str, None] = {}
    for w in WORD.findall(text):
        if _is_code_identifier(w):
            idents[w] = None
        # A row of underscores is a rule in pasted terminal output, not a word.
        elif len(w) > 2 and w.lower() not in STOP_WORDS and w.strip("_") and not w.strip("_").isdigit():
            words[w.lower()] = None
    q.identifiers = list(idents)
    lowered = {i.lower() for i in idents}
    q.words = [w for w in words if w not in lowered]
    q.mentions_test_path = any("test" in p.lower() for p in q.paths) or any("test" in f.path.lower() for f in q.frames)
    q.mentions_tests = q.mentions_test_path or any(w in _TEST_WORDS for w in words)
    q.mentions_docs = any(w in _DOC_WORDS for w in words) or any(p.lower().endswith(_DOC_SUFFIXES) for p in q.paths)
    return q
