"""Regular expressions from the model or the user, matched in linear time (RE2), so no pattern can freeze a search.

Python's `re` backtracks: `(a+)+$` against a long line of `a`s takes longer than the age of the universe, inside a
worker thread that cannot be stopped. RE2 (google-re2) guarantees time linear in the text, at the price of
backreferences and lookaround, which a clear error then asks to rewrite.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

import re2  # type: ignore[import-untyped]

MAX_PATTERN_CHARS = 2_000
# RE2 builds automata lazily within this much memory; a pattern that needs more is refused when compiled.
MAX_MEMORY = 64 << 20


class LinearPattern(Protocol):
    pattern: str

    def search(self, text: str) -> Any: ...

    def match(self, text: str) -> Any: ...


class UnsupportedPatternError(ValueError):
    """A pattern that is invalid, or uses what a linear-time engine cannot do; the message says which."""


def compile_linear(pattern: str, *, ignore_case: bool = False) -> LinearPattern:
    if len(pattern) > MAX_PATTERN_CHARS:
        raise UnsupportedPatternError(f"the pattern is longer than {MAX_PATTERN_CHARS} characters")
    options = re2.Options()
    options.log_errors = False  # errors are reported to the caller, not printed on stderr
    options.max_mem = MAX_MEMORY
    if ignore_case:
        options.case_sensitive = False
    try:
        return cast(LinearPattern, re2.compile(pattern, options))
    except re2.error as exc:
        detail = exc.args[0].decode(errors="replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        hint = ""
        if any(s in pattern for s in ("(?=", "(?!", "(?<=", "(?<!")) or any(f"\\{d}" in pattern for d in "123456789"):
            hint = " (lookaround and backreferences are not supported: search for a simpler pattern)"
        raise UnsupportedPatternError(f"{detail}{hint}") from None
