"""Validate payloads against the ACP v1 JSON schema (a copy of shared/reference/acp-v1-schema.json)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

SCHEMA_PATH = Path(__file__).parent / "schemas" / "acp-v1-schema.json"


@functools.cache
def _defs() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text())["$defs"]


@functools.cache
def validator(definition: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": _defs()})


def validate(definition: str, payload: Any) -> None:
    """Raise AssertionError listing every schema violation of `payload` as `definition`."""
    errors = sorted(validator(definition).iter_errors(payload), key=lambda e: list(e.path))
    if errors:
        lines = [f"{'/'.join(map(str, e.path)) or '(root)'}: {e.message[:300]}" for e in errors[:5]]
        raise AssertionError(f"{definition} violates the ACP schema:\n" + "\n".join(lines))
