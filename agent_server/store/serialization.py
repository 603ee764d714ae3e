"""Message <-> row conversion: the one place that knows how a Message is laid out in SQLite.

A message's typed fields beyond what the model is sent (`Message.nudge`, `is_error`, `rejected`, ...) are its
marks: the `marks` column holds those that differ from their defaults as one JSON object, named as the fields are.
The `meta` column holds the open `Message.meta` and the pictures."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import asdict, fields, is_dataclass, replace
from typing import Any

from ..errors import StoreError
from ..messages import FileDiff, Image, Message, Rejection, Repetition, ToolCall
from . import legacy_meta

# Images ride in the meta column (no schema change): base64 as sent, so a resumed session can send them again.
IMAGES_KEY = "_images"

MESSAGE_COLUMNS = (
    "role",
    "content",
    "thinking",
    "tool_calls",
    "tool_call_id",
    "tool_name",
    "meta",
    "marks",
    "token_count",
)
_SENT = {"role", "content", "thinking", "tool_calls", "tool_call_id", "tool_name", "meta", "images"}
MARKS = tuple(f.name for f in fields(Message) if f.name not in _SENT)
_DEFAULTS = Message("user")


def message_values(message: Message, token_count: int | None) -> tuple[Any, ...]:
    try:
        tool_calls = json.dumps([asdict(call) for call in message.tool_calls], ensure_ascii=False)
        old, meta_obj = legacy_meta.split(message.meta)  # a caller still passing flags in meta: kept as marks
        if message.images:
            meta_obj = {**meta_obj, IMAGES_KEY: [asdict(image) for image in message.images]}
        meta = json.dumps(meta_obj, ensure_ascii=False)
        marks = json.dumps({**old, **marks_of(message)}, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"message is not serializable: {exc}") from exc
    return (
        message.role,
        message.content,
        message.thinking,
        tool_calls,
        message.tool_call_id,
        message.tool_name,
        meta,
        marks,
        token_count,
    )


def row_to_message(row: sqlite3.Row) -> Message:
    calls = [
        ToolCall(
            id=c["id"], name=c["name"], arguments=c.get("arguments") or {}, arguments_error=c.get("arguments_error")
        )
        for c in json.loads(row["tool_calls"])
    ]
    meta = json.loads(row["meta"])
    meta = meta if isinstance(meta, dict) else {}
    stored = meta.pop(IMAGES_KEY, None)
    images = [
        Image(mime_type=str(i.get("mime_type")), data=str(i.get("data")), name=str(i.get("name") or ""))
        for i in (stored if isinstance(stored, list) else [])
        if isinstance(i, dict) and i.get("data")
    ]
    old, meta = legacy_meta.split(meta)  # a row an older agent-server wrote into the same file
    marks = json.loads(row["marks"])
    return Message(
        role=row["role"],
        content=row["content"],
        thinking=row["thinking"],
        tool_calls=calls,
        tool_call_id=row["tool_call_id"],
        tool_name=row["tool_name"],
        meta=meta,
        images=images,
        **read_marks({**old, **(marks if isinstance(marks, dict) else {})}),
    )


def as_stored(message: Message) -> Message:
    """The message as the store reads it back: flags a caller still passed in `meta` read as its fields."""
    old, rest = legacy_meta.split(message.meta)
    return replace(message, meta=rest, **read_marks(old)) if old else message


def marks_of(message: Message) -> dict[str, Any]:
    """The message's marks that differ from their defaults, as JSON values."""
    values = ((name, getattr(message, name)) for name in MARKS)
    return {name: _plain(value) for name, value in values if value != getattr(_DEFAULTS, name)}


def read_marks(marks: dict[str, Any]) -> dict[str, Any]:
    """Stored marks as `Message` keyword arguments; a name this release does not know, or a broken value, is left
    out."""
    out: dict[str, Any] = {}
    for name in MARKS:
        if name in marks:
            try:
                out[name] = _READERS.get(name, _same)(marks[name])
            except (TypeError, ValueError, KeyError, AttributeError):
                continue
    return out


def _plain(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _same(value: Any) -> Any:
    return value


def _repetition(value: Any) -> Repetition:
    return Repetition(str(value["span"]), int(value["repeats"]), str(value.get("within", "text")))


def _rejection(value: Any) -> Rejection:
    by = value["by"]
    if by not in ("user", "policy"):
        raise ValueError(by)
    return Rejection(by, str(value["reason"]))


def _diffs(value: Any) -> list[FileDiff]:
    return [_diff(d) for d in value if isinstance(d, dict)]


def _diff(d: dict[str, Any]) -> FileDiff:
    return FileDiff(str(d["path"]), str(d["new_text"]), None if d.get("old_text") is None else str(d["old_text"]))


_READERS: dict[str, Callable[[Any], Any]] = {
    "repetition": _repetition,
    "rejected": _rejection,
    "diffs": _diffs,
    "is_error": bool,
    "recovered_tool_calls": bool,
    "summary": bool,
    "pruned": bool,
    "shrunk": bool,
    "compacted": bool,
    "calls_not_run": int,
}
