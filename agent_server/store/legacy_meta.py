"""The `meta` keys that carried a message's control flags before they became `Message` fields (m011).

Frozen: this is what older releases wrote, not a vocabulary to extend. m011 moves the keys of the rows it finds into
the `marks` column with it; the store reads rows an older agent-server still writes into a shared file with it, and
a caller not yet moved to the fields (one that passes `meta={"display": ...}`) is stored as if it had set them.
"""

from __future__ import annotations

from typing import Any

# Each old key and the mark it became (serialization.py's vocabulary); "nudge", "verify", "results", "cancelled" and
# "error" are read together below.
_RENAMED = {
    "display": "display",
    "recovered_tool_calls": "recovered_tool_calls",
    "calls_not_run": "calls_not_run",
    "repetition": "repetition",
    "is_error": "is_error",
    "diffs": "diffs",
    "on_read": "on_read",
    "summary": "summary",
    "notes": "notes",
    "pruned": "pruned",
    "shrunk": "shrunk",
    "compacted": "compacted",
}
_FOLDED = {"nudge", "verify", "results", "cancelled", "error"}
KEYS = frozenset(_RENAMED) | _FOLDED


def split(meta: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the marks the old keys of `meta` meant, the rest of `meta`): the marks in the `marks` column's JSON."""
    if KEYS.isdisjoint(meta):
        return {}, meta
    marks: dict[str, Any] = {}
    rest = {k: v for k, v in meta.items() if k not in KEYS}
    for old, new in _RENAMED.items():
        if meta.get(old) not in (None, False, 0, "", [], {}):
            marks[new] = meta[old]
    if meta.get("results"):
        marks["nudge"] = "results"
    elif meta.get("nudge"):  # True (a guard's), or a word naming it: every nudge was a guard's or the verify command's
        marks["nudge"] = "verify" if meta.get("verify") else "guard"
    if meta.get("cancelled") or meta.get("error"):
        marks["interrupted"] = "cancelled" if meta.get("cancelled") else "error"
    if isinstance(marks.get("repetition"), dict) and "in" in marks["repetition"]:
        old_repetition = dict(marks["repetition"])
        old_repetition["within"] = old_repetition.pop("in")
        marks["repetition"] = old_repetition
    if isinstance(marks.get("diffs"), list):  # ACP's wire shape (oldText, newText) then
        marks["diffs"] = [_diff(d) for d in marks["diffs"] if isinstance(d, dict)]
    return marks, rest


def _diff(d: dict[str, Any]) -> dict[str, Any]:
    return {
        "path": d.get("path"),
        "old_text": d.get("old_text", d.get("oldText")),
        "new_text": d.get("new_text", d.get("newText")),
    }
