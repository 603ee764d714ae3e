"""Message <-> row conversion: the one place that knows how a Message is laid out in SQLite."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict
from typing import Any

from ..errors import StoreError
from ..messages import Image, Message, ToolCall

# Images ride in the meta column (no schema change): base64 as sent, so a resumed session can send them again.
IMAGES_KEY = "_images"

MESSAGE_COLUMNS = ("role", "content", "thinking", "tool_calls", "tool_call_id", "tool_name", "meta", "token_count")


def message_values(message: Message, token_count: int | None) -> tuple[Any, ...]:
    try:
        tool_calls = json.dumps([asdict(call) for call in message.tool_calls], ensure_ascii=False)
        meta_obj = message.meta
        if message.images:
            meta_obj = {**meta_obj, IMAGES_KEY: [asdict(image) for image in message.images]}
        meta = json.dumps(meta_obj, ensure_ascii=False)
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
    stored = meta.pop(IMAGES_KEY, None) if isinstance(meta, dict) else None
    images = [
        Image(mime_type=str(i.get("mime_type")), data=str(i.get("data")), name=str(i.get("name") or ""))
        for i in (stored if isinstance(stored, list) else [])
        if isinstance(i, dict) and i.get("data")
    ]
    return Message(
        role=row["role"],
        content=row["content"],
        thinking=row["thinking"],
        tool_calls=calls,
        tool_call_id=row["tool_call_id"],
        tool_name=row["tool_name"],
        meta=meta,
        images=images,
    )
