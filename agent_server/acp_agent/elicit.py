"""Questions to the user through ACP elicitation (`elicitation/create`, form mode), for clients that offer it.

Two kinds: a choice among fixed answers (the workspace-trust question, the on-read flow's questions: the core's
`show_message_request`) and the model's own question (`ask_question`), which may have suggested answers and
always takes the user's own words. Declining or dismissing is no answer: the caller keeps its default.
"""

from __future__ import annotations

from typing import Any

from .rpc import Connection


def form_supported(capabilities: dict[str, Any]) -> bool:
    elicitation = capabilities.get("elicitation")
    return isinstance(elicitation, dict) and isinstance(elicitation.get("form"), dict)


def _options(values: list[str]) -> list[dict[str, str]]:
    return [{"const": v, "title": v} for v in values]


async def _ask(conn: Connection, params: dict[str, Any]) -> dict[str, Any] | None:
    result = await conn.request("elicitation/create", params)
    if not isinstance(result, dict) or result.get("action") != "accept":
        return None
    content = result.get("content")
    return content if isinstance(content, dict) else {}


async def choose(conn: Connection, session_id: str, message: str, actions: list[str]) -> str | None:
    schema = {
        "type": "object",
        "properties": {"choice": {"type": "string", "title": "Choice", "oneOf": _options(actions)}},
        "required": ["choice"],
    }
    params = {"sessionId": session_id, "mode": "form", "message": message, "requestedSchema": schema}
    content = await _ask(conn, params)
    choice = content.get("choice") if content is not None else None
    return choice if isinstance(choice, str) and choice in actions else None


async def question(
    conn: Connection, session_id: str, tool_call_id: str | None, text: str, options: list[str]
) -> str | None:
    """The model's question: the user picks a suggestion or writes an answer; None when they did neither."""
    properties: dict[str, Any] = {}
    if options:
        properties["choice"] = {"type": "string", "title": "Answer", "oneOf": _options(options)}
        properties["other"] = {"type": "string", "title": "Or in your own words"}
        required: list[str] = []
    else:
        properties["answer"] = {"type": "string", "title": "Answer"}
        required = ["answer"]
    params: dict[str, Any] = {
        "sessionId": session_id,
        "mode": "form",
        "message": text,
        "requestedSchema": {"type": "object", "properties": properties, "required": required},
    }
    if tool_call_id:
        params["toolCallId"] = tool_call_id
    content = await _ask(conn, params)
    if content is None:
        return None
    for key in ("other", "answer", "choice"):  # own words win over a suggestion picked as well
        value = content.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None
