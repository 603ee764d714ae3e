"""Tool pre-filter: with more tools than `tools.max_per_request`, offer the K most relevant to the request.

Relevance is embedding similarity when an embed function is given, BM25 over name + description otherwise.
Loop-control tools (and, optionally, the built-ins) are always kept; the rest keep their original order.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any, Protocol, TypeVar

from ..context.tokens import estimate_tools
from ..llm.base import ToolSpec

log = logging.getLogger(__name__)

EmbedFn = Callable[[list[str]], Awaitable[list[list[float]]]]


class ToolLike(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def parameters(self) -> dict[str, Any]: ...


T = TypeVar("T", bound=ToolLike)

# --- tokenizing ---------------------------------------------------------------------------------------

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[A-Za-z0-9]+")
_STOP = frozenset(
    "a an and are as at be by can do does for from get give how i in into is it its me my of on or our please "
    "show so that the their them then there these this to up us use using want we what when where which who "
    "why will with you your".split()
)
# Abbreviations developers type, expanded on both sides so "PR" finds "pull request".
_ALIASES: dict[str, tuple[str, ...]] = {
    "pr": ("pull", "request"),
    "prs": ("pull", "request"),
    "mr": ("merge", "request"),
    "k8s": ("kubernetes",),
    "kube": ("kubernetes",),
    "repo": ("repository",),
    "db": ("database",),
    "sql": ("sql", "query"),
    "env": ("environment",),
    "deps": ("dependency",),
    "config": ("configuration",),
    "dir": ("directory",),
    "msg": ("message",),
    "ci": ("pipeline",),
}


def _stem(word: str) -> str:
    """A deliberately small suffix stripper: plurals and -ing/-ed, enough to match "commits" with "commit"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    return word


def tokenize(text: str) -> list[str]:
    """Words of `text`, identifiers split on `_`, `.`, `-` and camelCase, lowercased and stemmed."""
    out: list[str] = []
    for raw in _WORD.findall(_CAMEL.sub(" ", text)):
        word = raw.lower()
        if word in _STOP:
            continue
        for part in _ALIASES.get(word, (word,)):
            out.append(_stem(part))
    return out


def tool_text(tool: ToolLike) -> str:
    """What relevance is measured against: the name (twice: it is the densest signal), description, parameters."""
    props = tool.parameters.get("properties") if isinstance(tool.parameters, dict) else None
    params = " ".join(props) if isinstance(props, dict) else ""
    return f"{tool.name} {tool.name} {tool.description} {params}"


# --- ranking ------------------------------------------------------------------------------------------


def bm25_scores(query: str, documents: Sequence[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """Okapi BM25 of `query` against each document."""
    docs = [Counter(tokenize(d)) for d in documents]
    if not docs:
        return []
    n = len(docs)
    avg_len = sum(sum(d.values()) for d in docs) / n or 1.0
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d.keys())
    terms = set(tokenize(query))
    scores: list[float] = []
    for d in docs:
        length = sum(d.values())
        score = 0.0
        for term in terms:
            tf = d.get(term, 0)
            if not tf:
                continue
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg_len))
        scores.append(score)
    return scores


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


class ToolPrefilter:
    """Picks at most `max_tools` tools per request; keeps embeddings of tool texts between requests."""

    def __init__(
        self,
        max_tools: int = 15,
        *,
        always_keep: Collection[str] = (),
        keep_builtins: bool = False,
        embed: EmbedFn | None = None,
    ) -> None:
        if max_tools < 1:
            raise ValueError("max_tools must be at least 1")
        self.max_tools = max_tools
        self.always_keep = frozenset(always_keep)
        self.keep_builtins = keep_builtins
        self.embed = embed
        self._vectors: dict[str, list[float]] = {}

    def _kept(self, tool: ToolLike) -> bool:
        if tool.name in self.always_keep:
            return True
        return self.keep_builtins and getattr(tool, "source", None) == "builtin"

    async def scores(self, request: str, tools: Sequence[ToolLike]) -> list[float]:
        """Relevance of each tool to the request (embeddings if available and working, else BM25)."""
        texts = [tool_text(t) for t in tools]
        if self.embed is not None:
            try:
                return await self._embedding_scores(request, texts)
            except Exception as exc:  # an embedding server that is down must not block the turn
                log.warning("tool pre-filter: embeddings failed (%s); using BM25", exc)
        return bm25_scores(request, texts)

    async def _embedding_scores(self, request: str, texts: list[str]) -> list[float]:
        assert self.embed is not None
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        vectors = await self.embed([request, *missing])
        if len(vectors) != len(missing) + 1:
            raise ValueError(f"embed returned {len(vectors)} vectors for {len(missing) + 1} inputs")
        self._vectors.update(zip(missing, vectors[1:], strict=True))
        query = vectors[0]
        return [_cosine(query, self._vectors[t]) for t in texts]

    async def rank(self, request: str, tools: Sequence[T]) -> list[tuple[T, float]]:
        """All tools, most relevant first (ties keep the original order)."""
        scores = await self.scores(request, tools)
        order = sorted(range(len(tools)), key=lambda i: (-scores[i], i))
        return [(tools[i], scores[i]) for i in order]

    async def select(self, request: str, tools: Sequence[T]) -> list[T]:
        """The tools to offer for this request, in their original order."""
        if len(tools) <= self.max_tools:
            return list(tools)
        kept = {i for i, t in enumerate(tools) if self._kept(t)}
        room = self.max_tools - len(kept)
        if room > 0:
            candidates = [i for i in range(len(tools)) if i not in kept]
            scores = await self.scores(request, [tools[i] for i in candidates])
            best = sorted(range(len(candidates)), key=lambda j: (-scores[j], j))[:room]
            kept.update(candidates[j] for j in best)
        return [tools[i] for i in sorted(kept)]


def measure_tool_tokens(specs: Sequence[ToolLike]) -> int:
    """Token size of the tool definitions as sent (the JSON `tools` array), via the shared estimator."""
    return estimate_tools([ToolSpec(s.name, s.description, s.parameters) for s in specs])
