"""Which paths a request wants: tests, prose, example code and vendored code rank below the implementation unless
the request asks for them. One policy for the lexical scores and the vector ranking alike."""

from __future__ import annotations

from collections.abc import Callable

from .entities import is_example_path, is_vendored_path
from .query import ParsedQuery
from .search_context import SearchContext
from .weights import Weights


def is_test_path(path: str) -> bool:
    parts = path.lower().split("/")
    name = parts[-1]
    return (
        any(p in ("test", "tests", "testing", "__tests__", "spec", "specs") for p in parts[:-1])
        or name.startswith("test_")
        or name.startswith("conftest.")
        or ".test." in name
        or ".spec." in name
        or name.rsplit(".", 1)[0].endswith("_test")
    )


_PROSE_NAMES = ("readme", "changelog", "changes", "history", "news", "authors", "contributing", "license")
_PROSE_SUFFIXES = frozenset({"md", "rst", "txt", "adoc"})


def is_prose_path(path: str) -> bool:
    """Documentation and project prose rather than code."""
    name = path.lower().rsplit("/", 1)[-1]
    stem, _, suffix = name.rpartition(".")
    return suffix in _PROSE_SUFFIXES or (stem or suffix).startswith(_PROSE_NAMES)


def match_path(ctx: SearchContext, mention: str) -> list[int]:
    """Files a mentioned path refers to: the longest matching suffix that names at most a few files."""
    parts = [p for p in mention.replace("\\", "/").split("/") if p and p != "."]
    for i in range(len(parts)):
        key = "/".join(parts[i:])
        found = ctx.by_suffix.get(key)
        if found:
            # A bare file name like `utils.py` matches many files; only trust it when it is nearly unique.
            return found if len(found) <= (4 if i < len(parts) - 1 else 2) else []
    return []


def _names_workspace_test(ctx: SearchContext, q: ParsedQuery) -> bool:
    """The request names a test file or directory of this workspace. A bug report's own `test_foo.py` (the
    reproducer, not in the repository) says nothing about wanting the project's tests."""
    if not q.mentions_test_path:
        return False
    mentioned = [*q.paths, *(f.path for f in q.frames)]
    return any(is_test_path(ctx.paths[fid]) for m in mentioned for fid in match_path(ctx, m) if fid in ctx.paths)


def path_policy(ctx: SearchContext, q: ParsedQuery, w: Weights) -> Callable[[str], float]:
    """The multiplier a path's scores get: test files, prose, example code and vendored code below the
    implementation unless the request asks for them. Memoized per path (a query scores thousands of chunks of a few
    hundred files); the vector ranking applies the same policy (fusion.py)."""
    wants_tests = _names_workspace_test(ctx, q)
    cache: dict[str, float] = {}

    def factor(path: str) -> float:
        m = cache.get(path)
        if m is None:
            m = 1.0
            if not wants_tests and is_test_path(path):
                m = w.test_word_penalty if q.mentions_tests else w.test_penalty
            elif not q.mentions_docs and is_prose_path(path):
                m = w.doc_penalty
            elif not q.mentions_docs and is_example_path(path):
                m = w.example_penalty
            if is_vendored_path(path):
                m *= w.vendored_penalty
            cache[path] = m
        return m

    return factor
