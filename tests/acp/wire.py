"""Check a recorded ACP conversation: every line JSON-RPC 2.0, every message valid against an ACP v1 schema as the
definition its method names (`x-method`): requests, notifications, and each answer as the response to the request
it answers. The schema is tests/schemas/acp-v1-schema.json (a copy of shared/reference/acp-v1-schema.json) unless
another is given, such as the newer one the TypeScript SDK ships (SDK_SCHEMA)."""

from __future__ import annotations

import functools
import json
from collections import Counter
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from tests.acp import sdk
from tests.acp_schema import SCHEMA_PATH

AGENT_TO_CLIENT = "agent->client"
CLIENT_TO_AGENT = "client->agent"
SDK_SCHEMA = sdk.SDK_DIR / "schema" / "v1" / "schema.json"
# ACP's unstable methods (session/fork) are in the SDK's unstable schema only: checked against it.
SDK_UNSTABLE = SDK_SCHEMA.with_name("schema.unstable.json")
UNSTABLE_METHODS = frozenset({"session/fork"})


@functools.cache
def _defs(schema: Path) -> dict[str, Any]:
    if schema.is_relative_to(sdk.SDK_DIR):
        sdk.install()  # a clean clone has no node_modules until the first test that needs the SDK's schema
    defs: dict[str, Any] = json.loads(schema.read_text())["$defs"]
    return defs


@functools.cache
def _validator(schema: Path, definition: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": _defs(schema)})


def validate(definition: str, payload: Any, schema: Path = SCHEMA_PATH) -> None:
    errors = sorted(_validator(schema, definition).iter_errors(payload), key=lambda e: list(e.path))
    if errors:
        lines = [f"{'/'.join(map(str, e.path)) or '(root)'}: {e.message[:300]}" for e in errors[:5]]
        raise AssertionError(f"{definition} violates {schema.name}:\n" + "\n".join(lines))


@functools.cache
def definitions(schema: Path = SCHEMA_PATH) -> dict[tuple[str, str], str]:
    """(method, "Request" | "Response" | "Notification") -> schema definition name."""
    out: dict[tuple[str, str], str] = {}
    for name, spec in _defs(schema).items():
        method = spec.get("x-method")
        if not method:
            continue
        for kind in ("Request", "Response", "Notification"):
            if name.endswith(kind):
                out[(method, kind)] = name
    return out


def _schema_of(method: str, schema: Path) -> Path:
    return SDK_UNSTABLE if method in UNSTABLE_METHODS else schema


def check(lines: list[tuple[str, str]], schema: Path = SCHEMA_PATH) -> Counter[str]:
    """Validate a conversation given as (direction, raw line); returns how often each definition was seen.
    The unstable methods we speak (UNSTABLE_METHODS) are checked against the SDK's unstable v1 schema."""
    seen: Counter[str] = Counter()
    asked: dict[tuple[str, Any], str] = {}  # (direction of the request, id) -> method
    for direction, line in lines:
        message = json.loads(line)
        assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", f"not JSON-RPC 2.0: {line[:200]}"
        method = message.get("method")
        if method is not None:
            kind = "Request" if "id" in message else "Notification"
            definition = definitions(_schema_of(method, schema)).get((method, kind))
            assert definition, f"{direction} {kind.lower()} {method} is not an ACP v1 method"
            validate(definition, message.get("params"), _schema_of(method, schema))
            seen[definition] += 1
            if "id" in message:
                asked[(direction, message["id"])] = method
            continue
        other = CLIENT_TO_AGENT if direction == AGENT_TO_CLIENT else AGENT_TO_CLIENT
        request = asked.pop((other, message.get("id")), None)
        assert request is not None, f"{direction} answers an unknown request: {line[:200]}"
        if "error" in message:
            error = message["error"]
            assert isinstance(error.get("code"), int) and isinstance(error.get("message"), str), line
            seen["error"] += 1
            continue
        definition = definitions(_schema_of(request, schema))[(request, "Response")]
        validate(definition, message["result"], _schema_of(request, schema))
        seen[definition] += 1
    assert not asked, f"requests never answered: {sorted(map(str, asked.values()))}"
    return seen
