"""Helpers for the loop and session e2e tests: prompts, permission answers, an applyEdit applier, history checks."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from tests.acp_schema import validate
from tests.fakes.fake_llm import FakeLLMServer, RecordedRequest, Reply
from tests.lsp_client import LspClient

PERMISSION = "agent/session/request_permission"


# How long a request may wait while the server is busy with something else (a hostile answer being read, a cancel
# taking effect) before that counts as blocked. The failures these bounds catch took 10 s or more (the whole stream,
# a 30 s command, 14-22 s of parsing on the event loop); a healthy answer takes milliseconds, but on CI's 2 shared
# cores a test process can be descheduled for a second, so the bound is not set near 1 s.
ANSWERED_MEANWHILE_S = 3.0


def prompt_params(session_id: str, text: str) -> dict[str, object]:
    return {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}


async def prompt(client: LspClient, session_id: str, text: str) -> str:
    """Run one turn; returns its stopReason."""
    result = await client.request("agent/session/prompt", prompt_params(session_id, text))
    return str(result["stopReason"])


def answer_permissions(client: LspClient, *option_ids: str) -> list[dict[str, Any]]:
    """Answer permission requests with `option_ids` in order (the last one repeats); returns the requests seen."""
    seen: list[dict[str, Any]] = []

    def handler(params: dict[str, Any]) -> dict[str, Any]:
        validate("RequestPermissionRequest", params)
        seen.append(params)
        option = option_ids[min(len(seen), len(option_ids)) - 1]
        return {"outcome": {"outcome": "selected", "optionId": option}}

    client.handlers[PERMISSION] = handler
    return seen


def never_answer_permissions(client: LspClient) -> list[dict[str, Any]]:
    """A permission handler that never answers (the user walked away)."""
    seen: list[dict[str, Any]] = []

    async def handler(params: dict[str, Any]) -> dict[str, Any]:
        validate("RequestPermissionRequest", params)
        seen.append(params)
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    client.handlers[PERMISSION] = handler
    return seen


def validate_updates(client: LspClient) -> None:
    """Every agent/session/update the client received fits the ACP schema."""
    count = 0
    for _, method, params in client.notifications:
        if method == "agent/session/update":
            validate("SessionNotification", params)
            count += 1
    assert count, "no agent/session/update was received"


def tool_updates(client: LspClient, session_id: str) -> list[dict[str, Any]]:
    return [u for u in client.updates(session_id) if u["sessionUpdate"] in ("tool_call", "tool_call_update")]


def final_tool_updates(client: LspClient, session_id: str) -> list[dict[str, Any]]:
    """The completed/failed tool_call_update of every call, in order."""
    return [
        u
        for u in client.updates(session_id)
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") in ("completed", "failed")
    ]


def update_text(update: dict[str, Any]) -> str:
    return "".join(c["content"]["text"] for c in update.get("content") or [] if c.get("type") == "content")


def sent_messages(fake: FakeLLMServer, index: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = fake.chat_requests()[index].json["messages"]
    return messages


def assert_history_consistent(messages: list[dict[str, Any]]) -> None:
    """Every assistant tool call is answered by a tool message before the next assistant/user message."""
    pending: list[str] = []
    for m in messages:
        if m["role"] == "tool":
            if pending:
                pending.pop(0)
            continue
        assert not pending, f"tool calls without results before a {m['role']} message: {messages}"
        if m["role"] == "assistant":
            pending = [c.get("id") or c["function"]["name"] for c in m.get("tool_calls") or []]
    # A trailing call without a result would make the next request invalid for strict servers.
    assert not pending, f"trailing tool calls without results: {messages}"


def tool_results(messages: list[dict[str, Any]]) -> list[str]:
    return [str(m["content"]) for m in messages if m["role"] == "tool"]


# --- workspace/applyEdit in the test client -------------------------------------------------------------------


def _offset(text: str, line: int, character: int) -> int:
    lines = text.split("\n")
    if line >= len(lines):
        return len(text)
    start = sum(len(ln) + 1 for ln in lines[:line])
    prefix = lines[line].encode("utf-16-le")[: character * 2].decode("utf-16-le")
    return start + len(prefix)


def apply_text_edits(text: str, edits: list[dict[str, Any]]) -> str:
    """LSP TextEdits (non-overlapping, positions in the original text) applied back to front."""
    spans = []
    for e in edits:
        r = e["range"]
        spans.append(
            (
                _offset(text, r["start"]["line"], r["start"]["character"]),
                _offset(text, r["end"]["line"], r["end"]["character"]),
                e["newText"],
            )
        )
    for start, end, new in sorted(spans, key=lambda s: s[0], reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _path(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path))


def install_apply_edit(client: LspClient) -> list[dict[str, Any]]:
    """Handle workspace/applyEdit like an editor that saves at once: apply documentChanges to disk."""
    seen: list[dict[str, Any]] = []

    def handler(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(params)
        for change in params["edit"].get("documentChanges") or []:
            if change.get("kind") == "create":
                path = _path(change["uri"])
                if not path.exists():
                    path.write_text("")
                continue
            path = _path(change["textDocument"]["uri"])
            old = path.read_text() if path.exists() else ""
            path.write_text(apply_text_edits(old, change["edits"]))
        return {"applied": True}

    client.handlers["workspace/applyEdit"] = handler
    return seen


# --- a fake LLM that answers by request, with realistic prompt token counts ------------------------------------

SUMMARIZER_MARK = "Compress the following"


def request_tokens(body: dict[str, Any]) -> int:
    """A generous size estimate of a chat request as the server sees it: every JSON character / 3.5."""
    wire = json.dumps({"messages": body.get("messages"), "tools": body.get("tools")}, ensure_ascii=False)
    return int(len(wire) / 3.5) + 1


def is_summarizer(body: dict[str, Any]) -> bool:
    messages = body.get("messages") or []
    return not body.get("tools") and len(messages) == 1 and SUMMARIZER_MARK in str(messages[0].get("content"))


class RoutingFakeLLM(FakeLLMServer):
    """The fake LLM, plus: `responder(body)` may pick the reply for a request (else the script is used), and
    the reported prompt tokens follow the request's size, as a real server's would."""

    def __init__(self) -> None:
        super().__init__()
        self.responder: Callable[[dict[str, Any]], Reply | None] | None = None
        self._chosen: Reply | None = None

    def _pick(self, body: dict[str, Any]) -> Reply:
        reply = self.responder(body) if self.responder is not None else None
        if reply is None:
            reply = super()._next_reply()
        usage = dataclasses.replace(reply.usage, prompt_tokens=request_tokens(body))
        return dataclasses.replace(reply, usage=usage)

    def _next_reply(self) -> Reply:
        chosen, self._chosen = self._chosen, None
        return chosen if chosen is not None else super()._next_reply()

    async def _chat(self, req: Any, reader: Any, writer: Any, openai: bool) -> bool:
        # The base class takes its reply synchronously, before its first await: no other request can interleave.
        self._chosen = self._pick(req.json if isinstance(req.json, dict) else {})
        return await super()._chat(req, reader, writer, openai)

    def agent_requests(self) -> list[RecordedRequest]:
        """Chat requests of the turn loop (not the compaction summarizer's)."""
        return [r for r in self.chat_requests() if not is_summarizer(r.json)]
