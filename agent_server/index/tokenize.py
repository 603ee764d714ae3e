"""Identifier splitting and the token strings we feed to FTS5."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Boundaries inside an identifier: lower->Upper, ACRONYMWord, letter<->digit.
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

STOP_WORDS = frozenset(
    """a an and are as at be been but by can could did do does doing done for from had has have how i if in into
    is it its it's me my no not of on or our should so such than that the their them then there these they this
    those to too up us was we were what when where which while who why will with would you your also just only
    any all some more most other same very get got use used using like want make made way thing see seems seem
    work works working expected actual instead however because although now here still example problem issue bug
    please thanks hi hello following code error""".split()
)


_SPLIT_CACHE: dict[str, tuple[str, ...]] = {}
_SPLIT_CACHE_MAX = 400_000  # a codebase's identifier vocabulary; cleared wholesale when exceeded


def split_parts(name: str) -> tuple[str, ...]:
    """Cached `split_identifier` (indexing splits the same names millions of times)."""
    parts = _SPLIT_CACHE.get(name)
    if parts is None:
        if len(_SPLIT_CACHE) >= _SPLIT_CACHE_MAX:
            _SPLIT_CACHE.clear()
        parts = _SPLIT_CACHE[name] = tuple(
            m.group(0).lower() for piece in name.split("_") if piece for m in _CAMEL_RE.finditer(piece)
        )
    return parts


def split_identifier(name: str) -> list[str]:
    """`parseHTTPResponse` -> [parse, http, response]; `snake_case_name` -> [snake, case, name]."""
    return list(split_parts(name))


def identifiers(text: str) -> list[str]:
    """Every identifier-like word in `text`, in order."""
    return IDENT_RE.findall(text)


def body_terms(text: str, names: Iterable[str] | None = None) -> str:
    """Raw text plus the camel/snake parts of its compound identifiers, so `response` finds `parseHTTPResponse`.
    `names` are the text's identifiers when the caller already has them."""
    parts: list[str] = []
    for name in dict.fromkeys(IDENT_RE.findall(text) if names is None else names):
        pieces = split_parts(name)
        if len(pieces) > 1:
            parts.extend(pieces)
    return text + "\n" + " ".join(parts)


def expand_identifiers(names: Iterable[str]) -> str:
    """The FTS string for identifiers: each lowered whole name, then its parts when it has more than one."""
    out: list[str] = []
    seen: set[str] = set()
    for name in names:
        if name in seen:
            continue
        seen.add(name)
        lowered = name.lower().strip("_")
        if not lowered:
            continue
        out.append(lowered)
        parts = split_parts(name)
        if len(parts) > 1:
            out.extend(parts)
    return " ".join(out)


def path_terms(path: str) -> str:
    """The FTS string for a workspace-relative path: its components, stems and identifier parts."""
    pieces = re.split(r"[/\\.\-]+", path)
    return expand_identifiers(p for p in pieces if p)


def decode_refs(encoded: str) -> Iterator[tuple[str, int]]:
    """The `refs` table's `name count name count …` string as pairs."""
    parts = encoded.split()
    for i in range(0, len(parts) - 1, 2):
        yield parts[i], int(parts[i + 1])
