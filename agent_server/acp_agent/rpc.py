"""Newline-delimited JSON-RPC 2.0, ACP's stdio framing: one message per line, no headers, both directions.

Every request gets exactly one answer: a line that is not JSON gets -32700, a JSON value that is not a request
gets -32600, an unknown method -32601, and the connection keeps serving. Requests run concurrently (a prompt
stays pending for the whole turn while `session/cancel` and permission answers come in).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

import orjson
from pydantic import ValidationError

from .. import wire_trace

log = logging.getLogger(__name__)

INVALID_PARAMS = -32602
REQUEST_CANCELLED = -32800

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]
NotificationHandler = Callable[[dict[str, Any]], Awaitable[None]]
ErrorMapper = Callable[[BaseException, str], "RpcFailure"]


class LineReader(Protocol):
    async def readline(self) -> bytes: ...


class RpcFailure(Exception):
    """A JSON-RPC error answer: raised by handlers, or by `request()` when the client answered with an error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def wire(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def _default_mapper(exc: BaseException, method: str) -> RpcFailure:
    if isinstance(exc, RpcFailure):
        return exc
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "params"
        return RpcFailure(INVALID_PARAMS, f"Invalid params for {method}: {where}: {first['msg']}")
    return RpcFailure(-32603, f"internal error in {method}: {type(exc).__name__}: {exc}")


class Connection:
    def __init__(
        self,
        write: Callable[[bytes], None],
        requests: Mapping[str, Handler],
        notifications: Mapping[str, NotificationHandler],
        errors: ErrorMapper = _default_mapper,
    ) -> None:
        self._write = write
        self._requests = requests
        self._notifications = notifications
        self._errors = errors
        self._ids = itertools.count(1)
        self._pending: dict[int | str, asyncio.Future[Any]] = {}
        self._running: dict[Any, asyncio.Task[None]] = {}  # incoming requests by id, for $/cancel_request
        self._tasks: set[asyncio.Task[None]] = set()
        self.closed = asyncio.Event()

    # --- sending ----------------------------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        wire_trace.trace("acp", "agent->client", message)
        try:
            self._write(orjson.dumps(message) + b"\n")
        except (BrokenPipeError, ConnectionResetError):
            self.closed.set()
        except TypeError:  # orjson refuses ints past 64 bits and lone surrogates; the stdlib copes
            import json

            self._write(json.dumps(message, ensure_ascii=True).encode() + b"\n")

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """Send a request to the client and wait for its result (RpcFailure if it answered with an error)."""
        if self.closed.is_set():
            raise ConnectionError("the client has disconnected")
        msg_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        try:
            self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
            return await future
        finally:
            self._pending.pop(msg_id, None)

    def _answer(self, msg_id: Any, result: dict[str, Any] | None) -> None:
        self.send({"jsonrpc": "2.0", "id": msg_id, "result": result if result is not None else {}})

    def _fail(self, msg_id: Any, error: RpcFailure) -> None:
        self.send({"jsonrpc": "2.0", "id": msg_id, "error": error.wire()})

    # --- receiving --------------------------------------------------------------------------------------

    async def serve(self, reader: LineReader) -> None:
        """Read lines until the client closes its end; then cancel what still runs."""
        try:
            while not self.closed.is_set():
                try:
                    line = await reader.readline()
                except ValueError:  # longer than the reader's limit: it dropped the line
                    self._fail(None, RpcFailure(-32700, "Parse error: message too long"))
                    continue
                if not line:
                    break
                if line.strip():
                    self.handle_line(line)
        finally:
            self.closed.set()
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("the client has disconnected"))
            for task in list(self._tasks):
                task.cancel()
            if self._tasks:
                await asyncio.gather(*self._tasks, return_exceptions=True)

    def handle_line(self, line: bytes) -> None:
        wire_trace.trace("acp", "client->agent", line)
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            self._fail(None, RpcFailure(-32700, f"Parse error: {exc}"))
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            msg_id = message.get("id") if isinstance(message, dict) else None
            self._fail(_valid_id(msg_id), RpcFailure(-32600, "Invalid Request: expected a JSON-RPC 2.0 object"))
            return
        method = message.get("method")
        if method is None and "id" in message:
            self._resolve(message)
            return
        if not isinstance(method, str) or ("id" in message and not _is_id(message["id"])):
            self._fail(_valid_id(message.get("id")), RpcFailure(-32600, "Invalid Request: bad method or id"))
            return
        params = message.get("params")
        if params is None:
            params = {}
        if "id" not in message:
            self._spawn(self._notification(method, params), None)
            return
        msg_id = message["id"]
        if not isinstance(params, dict):
            self._fail(msg_id, RpcFailure(INVALID_PARAMS, f"Invalid params for {method}: expected an object"))
            return
        handler = self._requests.get(method)
        if handler is None:
            self._fail(msg_id, RpcFailure(-32601, f"Method not found: {method}"))
            return
        self._spawn(self._request(msg_id, method, handler, params), msg_id)

    def _spawn(self, coro: Awaitable[None], msg_id: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        if msg_id is not None:
            self._running[msg_id] = task

        def done(t: asyncio.Task[None]) -> None:
            self._tasks.discard(t)
            if msg_id is not None and self._running.get(msg_id) is t:
                del self._running[msg_id]

        task.add_done_callback(done)

    async def _request(self, msg_id: Any, method: str, handler: Handler, params: dict[str, Any]) -> None:
        try:
            result = await handler(params)
        except asyncio.CancelledError:
            if not self.closed.is_set():
                self._fail(msg_id, RpcFailure(REQUEST_CANCELLED, f"{method} was cancelled"))
            return
        except Exception as exc:
            error = self._errors(exc, method)
            if error.code == -32603:
                log.warning("%s failed", method, exc_info=exc)
            self._fail(msg_id, error)
            return
        self._answer(msg_id, result)

    async def _notification(self, method: str, params: Any) -> None:
        if method == "$/cancel_request":
            task = self._running.get(params.get("requestId")) if isinstance(params, dict) else None
            if task is not None:
                task.cancel()
            return
        handler = self._notifications.get(method)
        if handler is None:
            log.info("ignoring the notification %s", method)
            return
        if not isinstance(params, dict):
            log.warning("ignoring %s: params are not an object", method)
            return
        try:
            await handler(params)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a notification has no answer: log it
            log.warning("%s ignored: %s", method, exc)

    def _resolve(self, message: dict[str, Any]) -> None:
        future = self._pending.get(message["id"])
        if future is None or future.done():
            log.info("dropping an answer to an unknown or abandoned request %r", message["id"])
            return
        error = message.get("error")
        if error is not None:
            code = error.get("code") if isinstance(error, dict) else None
            text = error.get("message") if isinstance(error, dict) else None
            future.set_exception(
                RpcFailure(code if isinstance(code, int) else -32603, str(text or error), _data(error))
            )
        else:
            future.set_result(message.get("result"))


def _is_id(value: Any) -> bool:
    return value is None or (isinstance(value, (int, str)) and not isinstance(value, bool))


def _valid_id(value: Any) -> Any:
    return value if _is_id(value) else None


def _data(error: Any) -> Any:
    return error.get("data") if isinstance(error, dict) else None
