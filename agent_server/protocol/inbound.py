"""One message body from the client: parsed within limits, checked, and handed to pygls, or answered with why not.

The rule this module keeps: every message that carries an id gets exactly one answer, whatever its shape. pygls
drops what it cannot structure (a notification name sent with an id, a batch, JSON too deep for the parser, a
number too long for `int`), and a client waiting on such a request would hang.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Protocol

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
MAX_DEPTH = 64  # arrays/objects inside each other; real messages stay under 10, the parsers recurse
MAX_DIGITS = 400  # longer integers are refused before `int` spends quadratic time on them
_ID_TYPES = (str, int)


class RpcProtocol(Protocol):
    def structure_message(self, data: dict[str, Any]) -> Any: ...

    def handle_message(self, message: Any) -> None: ...

    def _send_data(self, data: Any) -> None: ...


class _TooLong(ValueError):
    pass


def _parse_int(digits: str) -> int:
    if len(digits) > MAX_DIGITS:
        raise _TooLong(f"a number with {len(digits)} digits (the limit is {MAX_DIGITS})")
    return int(digits)


def error_message(msg_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def _valid_id(value: Any) -> bool:
    return isinstance(value, _ID_TYPES) and not isinstance(value, bool)


def dispatch(protocol: RpcProtocol, body: bytes) -> None:
    """Parse one message body and hand it to the protocol, or answer why it cannot be."""
    try:
        raw = json.loads(body, parse_int=_parse_int)
    except (_TooLong, RecursionError) as exc:
        # Well-formed but beyond what we parse: the id can still be found, and the client is waiting on it.
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        protocol._send_data(error_message(salvage_id(body), PARSE_ERROR, f"Parse error: {reason}"))
        return
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, a string past Python's int limit
        protocol._send_data(error_message(None, PARSE_ERROR, f"Parse error: {exc}"))
        return
    if isinstance(raw, list):
        _refuse_batch(protocol, raw)
        return
    if not isinstance(raw, dict):
        protocol._send_data(error_message(None, INVALID_REQUEST, "Invalid Request: expected a JSON-RPC 2.0 object"))
        return
    has_id = "id" in raw
    msg_id = raw.get("id")
    method = raw.get("method")
    if has_id and msg_id is not None and not _valid_id(msg_id):
        protocol._send_data(error_message(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer"))
        return
    bad_method = "method" in raw and not (isinstance(method, str) and method)
    if raw.get("jsonrpc") != "2.0" or bad_method or not (has_id or "method" in raw):
        protocol._send_data(error_message(msg_id, INVALID_REQUEST, "Invalid Request: expected a JSON-RPC 2.0 object"))
        return
    if _depth_over(raw, MAX_DEPTH):
        _answer_or_log(protocol, raw, INVALID_REQUEST, f"Invalid Request: nested deeper than {MAX_DEPTH} levels")
        return
    if method == "initialize" and has_id and getattr(protocol, "server_capabilities", None) is not None:
        # A second initialize would replace the workspace, the settings and every session: refuse it.
        protocol._send_data(
            error_message(msg_id, INVALID_REQUEST, "Invalid Request: the server is already initialized")
        )
        return
    problem = _unusable_string(raw) if b"\\u" in body else None  # both cases need an escape in the JSON text
    if problem is not None:
        _answer_or_log(protocol, raw, INVALID_PARAMS, f"Invalid params for {method}: {problem}")
        return
    if method is not None and has_id and getattr(protocol, "_shutdown", False):
        protocol._send_data(error_message(msg_id, INVALID_REQUEST, "Invalid Request: the server is shutting down"))
        return
    if method is not None and has_id and _is_notification(protocol, method):
        # pygls would structure it as a notification and drop the id; the client would wait forever.
        refusal = f"Invalid Request: {method} is a notification; send it without an id"
        protocol._send_data(error_message(msg_id, INVALID_REQUEST, refusal))
        return
    try:
        message = protocol.structure_message(raw)
    except Exception as exc:
        if method is None:
            # A malformed answer to one of our requests: fail that request instead of waiting forever.
            futures = getattr(protocol, "_request_futures", {})
            pending = futures.pop(msg_id, None)
            if pending is not None and not pending.done():
                pending.set_exception(ValueError(f"the client answered with a malformed result: {exc}"))
            else:
                log.warning("dropping a malformed response %r: %s", msg_id, exc)
        else:
            _answer_or_log(protocol, raw, INVALID_PARAMS, f"Invalid params for {method}: {_short(exc)}")
        return
    if method is not None and has_id and not hasattr(message, "id"):
        protocol._send_data(error_message(msg_id, INVALID_REQUEST, f"Invalid Request: {method} takes no id"))
        return
    if method is None and _gave_up_on(protocol, msg_id):
        # The answer to a request the server cancelled (a turn stopped while its approval was open): the user's
        # late click is no error, and pygls would raise setting the result of a cancelled future.
        log.debug("dropping the late answer to cancelled request %r", msg_id)
        return
    protocol.handle_message(message)


def _gave_up_on(protocol: RpcProtocol, msg_id: Any) -> bool:
    """True when `msg_id` is one of our requests whose future was already cancelled (popped: it waits for nothing)."""
    futures = getattr(protocol, "_request_futures", {})
    pending = futures.get(msg_id)
    if pending is None or not pending.cancelled():
        return False
    futures.pop(msg_id, None)
    return True


def _is_notification(protocol: RpcProtocol, method: str) -> bool:
    """An LSP method whose message type has no id field (`initialized`, `$/cancelRequest`, `exit`, didOpen…)."""
    lookup = getattr(protocol, "get_message_type", None)
    kind = lookup(method) if lookup is not None else None
    fields = getattr(kind, "__attrs_attrs__", None)
    return fields is not None and not any(f.name == "id" for f in fields)


def _answer_or_log(protocol: RpcProtocol, raw: dict[str, Any], code: int, message: str) -> None:
    if "id" in raw and "method" in raw:
        protocol._send_data(error_message(raw["id"], code, message))
    else:
        log.warning("dropping a message: %s", message)


def _refuse_batch(protocol: RpcProtocol, items: list[Any]) -> None:
    """LSP framing has no batches; each request in one gets its own clear error, so no id waits forever."""
    message = "Invalid Request: batches are not supported; send each message on its own"
    ids = [m["id"] for m in items if isinstance(m, dict) and "method" in m and _valid_id(m.get("id"))]
    for msg_id in dict.fromkeys(ids):
        protocol._send_data(error_message(msg_id, INVALID_REQUEST, message))
    if not ids:
        protocol._send_data(error_message(None, INVALID_REQUEST, message))


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# Values the server turns into file system paths; a NUL there makes every os call raise.
_PATH_KEYS = frozenset({"cwd", "path", "uri", "rootUri", "rootPath", "root"})


def _unusable_string(value: Any) -> str | None:
    """Why a string in the message cannot be used, if one cannot: half of a UTF-16 pair escaped on its own
    (\\ud800; not Unicode, so no file name, SQLite text or UTF-8 answer holds it), or a NUL in a path."""
    stack: list[tuple[Any, Any]] = [(None, value)]
    while stack:
        key, item = stack.pop()
        if isinstance(item, str):
            if _LONE_SURROGATE.search(item):
                return "a string holds a lone UTF-16 surrogate"
            if key in _PATH_KEYS and "\x00" in item:
                return f"{key} holds a NUL character"
        elif isinstance(item, dict):
            stack.extend((None, k) for k in item)
            stack.extend(item.items())
        elif isinstance(item, list):
            stack.extend((None, v) for v in item)
    return None


def _depth_over(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return False


# --- the id of a message we cannot parse ----------------------------------------------------------------------

_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]|[^"\[\]{}]+', re.S)
_SCALAR_ID = re.compile(rb"\s*(-?\d{1,18}|null)\s*(?:,|$)")


def salvage_id(body: bytes) -> str | int | None:
    """The top-level "id" of a well-formed message, found by a linear scan that never recurses; None if unsure."""
    depth = 0
    key: bytes | None = None  # the last string at depth 1, a key if a colon follows
    awaiting_id = False  # the previous tokens were `"id" :`
    for m in _TOKEN.finditer(body):
        tok = m.group()
        first = tok[:1]
        if first in (b"{", b"["):
            if depth == 0 and first != b"{":
                return None
            depth += 1
            key, awaiting_id = None, False
            continue
        if first in (b"}", b"]"):
            depth -= 1
            if depth <= 0:
                return None
            key, awaiting_id = None, False
            continue
        if depth != 1:
            continue
        if first == b'"':
            if awaiting_id:
                try:
                    value = json.loads(tok)
                except ValueError:
                    return None
                return value if isinstance(value, str) else None
            key = tok
            continue
        text = tok.strip()
        if key == b'"id"' and text.startswith(b":"):
            scalar = _SCALAR_ID.match(text[1:])
            if scalar:
                return None if scalar.group(1) == b"null" else int(scalar.group(1))
            awaiting_id = not text[1:].strip()
        else:
            awaiting_id = False
        key = None
    return None
