"""Optional YAML frontmatter of markdown files (rules `.mdc`, `.continue/rules/*.md`): tolerant, since a rules
file with a broken header is still worth reading as text."""

from __future__ import annotations

from typing import Any

import yaml


def split(text: str) -> tuple[dict[str, Any], str]:
    """(frontmatter, body); a file without a valid mapping header is all body."""
    if not text.startswith("---"):
        return {}, text
    head, sep, rest = text[3:].partition("\n---")
    if not sep:
        return {}, text
    try:
        data = yaml.safe_load(head) or {}
    except yaml.YAMLError:
        return {}, text
    if not isinstance(data, dict):
        return {}, text
    body = rest.split("\n", 1)[1] if "\n" in rest else ""
    return data, body


def globs_of(value: Any) -> tuple[str, ...]:
    """Cursor writes `globs: src/**/*.ts, test/**` (one string) as often as a YAML list."""
    if isinstance(value, str):
        return tuple(g.strip() for g in value.split(",") if g.strip())
    if isinstance(value, list):
        return tuple(str(g).strip() for g in value if str(g).strip())
    return ()
