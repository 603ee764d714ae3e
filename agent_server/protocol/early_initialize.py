"""Answer the editor's `initialize` before the heavy imports (pygls and lsprotocol alone take hundreds of ms).

An editor shows nothing until `initialize` is answered. The answer is static (the capabilities this server always
registers, the position encoding chosen the way pygls chooses it), so `agent-server serve` on a pipe reads the first
message itself with the standard library, answers it at once, and hands the bytes it read to the real read loop:
pygls then handles the same `initialize` (its state and our settings come from it) and its own answer to that id is
dropped, so the client gets exactly one. `tests/e2e/test_early_initialize.py` checks that both answers are the same
and that the answer does not wait for pygls to load. Standard library only: this runs before anything else.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from typing import Any

OFF_SWITCH = "AGENT_SERVER_EARLY_INITIALIZE"  # "0": let pygls answer (for comparing the two answers)
_HEADER_LIMIT = 64 * 1024
_BODY_LIMIT = 16 * 1024 * 1024
_CONTENT_LENGTH = re.compile(rb"^content-length:[ \t]*(\d{1,9})[ \t]*$", re.IGNORECASE | re.MULTILINE)
_ENCODINGS = ("utf-8", "utf-16", "utf-32")  # pygls's supported position encodings
_HEADER = b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"


@dataclass
class Early:
    prefix: bytes = b""  # what was read from stdin: the read loop must see it first
    answered_id: int | str | None = None  # the pygls response to drop (None: nothing was answered)


pending = Early()  # set by take(), read by the stdio server


def capabilities(client: dict[str, Any]) -> dict[str, Any]:
    """What pygls answers for the features this server registers (kept equal by a test)."""
    encoding = "utf-16"
    general = client.get("general") if isinstance(client, dict) else None
    offered = general.get("positionEncodings") if isinstance(general, dict) else None
    if isinstance(offered, list):
        encoding = next((e for e in offered if e in _ENCODINGS), "utf-16")
    return {
        "positionEncoding": encoding,
        "textDocumentSync": {"openClose": True, "change": 2, "save": {"documentSelector": None, "includeText": True}},
        "executeCommandProvider": {"commands": ["agent.index"]},
        "inlineCompletionProvider": {},
        "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": True}, "fileOperations": {}},
    }


def _read_first_message() -> tuple[bytes, dict[str, Any] | None]:
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = os.read(0, 65536)
        if not chunk or len(buf) > _HEADER_LIMIT:
            return buf + chunk, None
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    match = _CONTENT_LENGTH.search(head)
    if match is None or int(match.group(1)) > _BODY_LIMIT:
        return buf, None
    length = int(match.group(1))
    while len(rest) < length:
        chunk = os.read(0, max(65536, length - len(rest)))
        if not chunk:
            return buf, None
        buf += chunk
        rest += chunk
    try:
        message = json.loads(rest[:length])
    except (ValueError, RecursionError):
        return buf, None
    return buf, message if isinstance(message, dict) else None


def take(version: str, wire_fd: int = 1) -> None:
    """Read the first message; if it is a well-formed `initialize`, answer it now on `wire_fd`. Never raises."""
    global pending
    if os.environ.get(OFF_SWITCH) == "0":
        return
    try:
        if not stat.S_ISFIFO(os.fstat(0).st_mode) and not stat.S_ISSOCK(os.fstat(0).st_mode):
            return  # a terminal or a file: the ordinary reader handles it
        prefix, message = _read_first_message()
    except OSError:
        return
    pending = Early(prefix=prefix)
    if message is None or message.get("method") != "initialize" or message.get("jsonrpc") != "2.0":
        return
    msg_id, params = message.get("id"), message.get("params")
    if not isinstance(msg_id, int | str) or isinstance(msg_id, bool) or not isinstance(params, dict):
        return
    result = {
        "capabilities": capabilities(params.get("capabilities") or {}),
        "serverInfo": {"name": "agent-server", "version": version},
    }
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}, separators=(",", ":")).encode()
    try:
        os.write(wire_fd, _HEADER % len(body) + body)
    except OSError:
        return
    pending = Early(prefix=prefix, answered_id=msg_id)
