"""Whether a file's text parses in its language, and where it stops when it does not.

Used by `write_guard` to tell a write that breaks a file from one that does not. Python with `ast.parse`, JSON,
TOML and YAML with their own parsers, other languages with tree-sitter (an ERROR or MISSING node is a parse error);
which suffixes are judged was measured on real files (docs/tools.md, "Writes that are refused"): a grammar that
reads valid code as broken would refuse good writes, so the suffixes left out are those where it did.

Every parser here holds the GIL for the whole parse, even in a worker thread, so a text over its language's
`MAX_BYTES` is not judged at all: each parse is a bounded pause (measured: under ~0.3 s on a busy machine), never an
unbounded one. Results are cached by the text's hash, as the permission preview and the write judge the same texts.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import threading
import tomllib
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import yaml

# Bigger texts are not judged. Python ~1 MB/s, tree-sitter ~3 MB/s, json ~10 MB/s, tomllib and PyYAML's C loader
# ~0.3 MB/s, measured on a busy 2-core machine; 256 kB of Python is about 7,000 lines.
MAX_BYTES = {"python": 256_000, "json": 1_000_000, "toml": 64_000, "yaml": 64_000}
MAX_TREE_SITTER_BYTES = 512_000
CACHE_SIZE = 32

# Suffix -> language. tree-sitter grammars are listed only where valid real files parsed without errors.
PARSERS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".json": "json",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".lua": "lua",
    ".rb": "ruby",
}
NAMES = {"javascript": "JavaScript", "typescript": "TypeScript", "tsx": "TSX"}
# JSON with comments by convention: a comment is no error there.
JSONC_NAMES = re.compile(r"^(tsconfig.*|jsconfig.*|\.?devcontainer|settings|launch|tasks|extensions)\.json$")


@dataclass(frozen=True)
class ParseError:
    """Where and why a text does not parse: `line` is 1-based, `message` the parser's words."""

    language: str
    line: int
    message: str

    def describe(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass(frozen=True)
class Parsed:
    """The text parses."""


PARSED = Parsed()
# None: not judged (no parser for this kind of file, too big, or the parser gave up without saying where).
Outcome = ParseError | Parsed | None

_cache: OrderedDict[tuple[str, bytes], Outcome] = OrderedDict()
_lock = threading.Lock()
_local = threading.local()


def language_of(path: str) -> str | None:
    """The language whose parser judges `path`, None when none does."""
    name = PurePosixPath(path).name
    suffix = PurePosixPath(name).suffix.lower()
    if suffix == ".json" and JSONC_NAMES.match(name.lower()):
        return None
    return PARSERS.get(suffix)


def check(path: str, text: str) -> Outcome:
    """Whether `text`, as the content of `path`, parses. Blocking: call it from a worker thread."""
    language = language_of(path)
    limit = MAX_BYTES.get(language or "", MAX_TREE_SITTER_BYTES)
    if language is None or len(text) > limit:
        return None
    text = text.removeprefix("\ufeff")  # a byte order mark is no syntax
    data = text.encode("utf-8", "replace")
    if len(data) > limit:
        return None
    key = (language, hashlib.blake2b(data, digest_size=16).digest())
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    outcome = _parse(language, text, data)
    with _lock:
        _cache[key] = outcome
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return outcome


def _parse(language: str, text: str, data: bytes) -> Outcome:
    try:
        if language == "python":
            return _python(text)
        if language == "json":
            return _json(text)
        if language == "toml":
            return _toml(text)
        if language == "yaml":
            return _yaml(text)
        return _tree_sitter(language, data)
    except (RecursionError, MemoryError, UnicodeError):  # nesting past what a parser handles, a lone surrogate
        return None


def _python(text: str) -> Outcome:
    try:
        ast.parse(text)
    except SyntaxError as exc:
        where = f" (`{exc.text.strip()[:80]}`)" if exc.text and exc.text.strip() else ""
        return ParseError("Python", exc.lineno or 1, f"{exc.msg}{where}")
    except ValueError as exc:  # a NUL byte
        return ParseError("Python", 1, str(exc))
    return PARSED


def _json(text: str) -> Outcome:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return ParseError("JSON", exc.lineno, exc.msg)
    return PARSED


TOML_WHERE = re.compile(r"\s*\(at line (\d+), column \d+\)$|\s*\(at end of document\)$")


def _toml(text: str) -> Outcome:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = TOML_WHERE.search(message)
        line = int(found.group(1)) if found and found.group(1) else text.count("\n") + 1
        return ParseError("TOML", line, TOML_WHERE.sub("", message))
    return PARSED


def _yaml(text: str) -> Outcome:
    # Composed, not constructed: aliases are not expanded (no "billion laughs") and no tag runs anything.
    try:
        for _ in yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            pass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        return ParseError("YAML", (mark.line + 1) if mark else 1, str(exc.problem or exc.context or "invalid YAML"))
    except yaml.YAMLError as exc:
        return ParseError("YAML", 1, str(exc))
    return PARSED


def _parser(language: str) -> Any:
    """A tree-sitter parser for `language`, one per thread (parsers are not thread-safe)."""
    cache: dict[str, Any] | None = getattr(_local, "parsers", None)
    if cache is None:
        cache = _local.parsers = {}
    if language not in cache:
        from tree_sitter_language_pack import get_parser

        cache[language] = get_parser(language)  # type: ignore[arg-type]
    return cache[language]


def _tree_sitter(language: str, source: bytes) -> Outcome:
    root = _parser(language).parse(source).root_node
    if not root.has_error:
        return PARSED
    node = _first_error(root)
    row, end = node.start_point[0], node.end_point[0]
    lines = source.split(b"\n")
    line = lines[row].decode("utf-8", "replace").strip()[:80] if row < len(lines) else ""
    name = NAMES.get(language, language.capitalize())
    if node.is_missing:
        return ParseError(name, row + 1, f"missing `{node.type}` (in `{line}`)" if line else f"missing `{node.type}`")
    if end > row:  # the parser gave up on a stretch of lines: say which
        return ParseError(name, row + 1, f"lines {row + 1}-{end + 1} do not parse (from `{line}`)")
    bad = source[node.start_byte : node.end_byte].decode("utf-8", "replace").strip()[:40]
    what = f"unexpected `{bad}`" if bad else "syntax error"
    return ParseError(name, row + 1, f"{what} (in `{line}`)" if line and line != bad else what)


def _first_error(root: Any) -> Any:
    """The first ERROR or MISSING node in document order, going down only where an error is (the innermost)."""
    node = root
    while True:
        deeper = next((c for c in node.children if c.has_error or c.is_missing), None)
        if deeper is None or deeper.is_missing:
            return deeper if deeper is not None else node
        node = deeper
