"""A redacted trace of every JSON-RPC message, both faces (ACP and LSP), at DEBUG on the `agent_server.trace` logger.

It is what a user attaches to an interop bug report (`--log-level DEBUG --log-file F`): the shape of every message
in order, without what must not leave the machine. Texts that may be file contents (documents, prompts, answers,
diffs, terminal output, tool arguments that carry file text) and command lines (a tool's `command`, a terminal's
`args`, card and session titles) are replaced by their length unless the user asked
for them (`--log-content`); values that look like credentials (API keys, tokens, MCP server env and headers) are
always masked, and the logging filter masks configured secrets on top of that.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import orjson

log = logging.getLogger("agent_server.trace")

# Keys whose string values may be a file's text or a conversation's: shown as their length.
CONTENT_KEYS = frozenset(
    {
        "text", "content", "contents", "oldText", "newText", "old_text", "new_text", "data", "blob", "output",
        "thinking", "insertText", "newName", "prompt", "message", "summary", "answer",
        # Command lines and what is built from them or from the conversation: a command can carry a token
        # (`curl -H "Authorization: …"`), a tool card's title is the command, a session's title is the prompt, and
        # a permission request's `_meta.why` quotes each segment of the command it asks about.
        "args", "title", "cmd", "commandLine", "arguments", "why",
    }
)  # fmt: skip
# A tool call's arguments (`rawInput` in ACP, `arguments` in the LLM wire) are the model's: a command, a pattern, a
# file's text. Every string in them but the path it works on is shown as its length.
_ARGUMENT_KEYS = frozenset({"rawInput", "arguments", "input"})
_ARGUMENT_KEEP = frozenset({"path", "cwd", "start_line", "end_line", "limit", "name"})
_SECRET_KEY = re.compile(r"(?i)(api[_-]?key|token|secret|password|authorization|credential|cookie)")
# MCP servers' env and headers, as {NAME: value} or [{name, value}]: every value may be a key, whatever its name.
_SECRET_LISTS = frozenset({"env", "headers"})

show_content = False  # --log-content: keep texts whole (still without secrets)


def enabled() -> bool:
    return log.isEnabledFor(logging.DEBUG)


def trace(face: str, direction: str, message: Any) -> None:
    """Log one message (`bytes` as read or written, or the object about to be sent)."""
    if not log.isEnabledFor(logging.DEBUG):
        return
    if isinstance(message, bytes | bytearray | memoryview):
        try:
            message = orjson.loads(message)
        except orjson.JSONDecodeError:
            log.debug("%s %s (not JSON, %d bytes)", face, direction, len(message))
            return
    try:
        shown = orjson.dumps(redact(message)).decode()
    except TypeError:
        shown = repr(message)[:2000]
    log.debug("%s %s %s", face, direction, shown)


def redact(value: Any, key: str = "", parent: str = "") -> Any:
    if isinstance(value, dict):
        return {k: redact(v, str(k), key) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, key, parent) for v in value]
    if isinstance(value, str):
        if _SECRET_KEY.search(key) or (parent in _SECRET_LISTS and key != "name"):
            return "***"
        if show_content:
            return value
        if key in CONTENT_KEYS or (parent in _ARGUMENT_KEYS and key not in _ARGUMENT_KEEP):
            return f"<{len(value)} chars>"
    return value
