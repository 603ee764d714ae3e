"""HTTP plumbing shared by the providers: line splitting, error bodies, and httpx errors mapped to `LLMError`s.

What an LLM server sends is read with a bound: a streamed line (or SSE event) at most `MAX_LINE` bytes, a whole JSON
answer at most `MAX_BODY`, an error body's first `MAX_ERROR_BODY` (the rest is not read). A server that sends one
endless line gets a clear `LLMStreamError` at the bound instead of a buffer that grows until memory runs out.
"""

from __future__ import annotations

import datetime
import email.utils
import importlib.util
import json
import re
import ssl
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import httpx
import orjson

from ..errors import ContextOverflowError, LLMConnectionError, LLMError, LLMHTTPError, LLMStreamError
from .wire import Wire

_OVERFLOW = re.compile(
    r"context (length|size|window)|exceeds? the (available )?context|maximum context|n_ctx|prompt is too long",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\b(\d{3,8})\b")


if importlib.util.find_spec("sniffio") is None:
    # httpcore imports sniffio for every lock it makes (several per request); uninstalled, each failed import
    # searches sys.path again (~40 us). A None entry makes the import fail at once, as the absence is permanent.
    sys.modules.setdefault("sniffio", None)  # type: ignore[arg-type]


def json_body(payload: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
    """httpx keyword arguments sending `payload` as JSON, encoded by orjson (the compact UTF-8 JSON httpx's `json=`
    writes, faster); what orjson refuses (ints past 64 bits) goes to httpx's own encoder."""
    try:
        content = orjson.dumps(payload)
    except TypeError:
        return {"json": payload, "headers": headers}
    return {"content": content, "headers": {**(headers or {}), "Content-Type": "application/json"}}


MAX_LINE = 16 * 1024 * 1024  # one streamed line or event: a whole file as one tool call's arguments fits
MAX_BODY = 32 * 1024 * 1024  # one JSON answer (model lists, a non-streamed reply, a batch of embeddings)
MAX_ERROR_BODY = 64 * 1024  # an error's body: only its message is used


class Pending:
    """The bytes of a line or event not complete yet, kept as pieces and joined once it ends: appending each piece to
    one bytes object copied it all again every time (quadratic), and nothing bounded it."""

    def __init__(self, url: str, what: str = "a line", limit: int = MAX_LINE) -> None:
        self.url, self.what, self.limit = url, what, limit
        self.pieces: list[bytes] = []
        self.size = 0

    def add(self, data: bytes) -> None:
        if not data:
            return
        self.size += len(data)
        if self.size > self.limit:
            self.pieces.clear()
            raise LLMStreamError(
                self.url,
                f"it sent more than {self.limit // (1024 * 1024)} MiB without ending {self.what}; "
                "the answer was cut off there (a broken or hostile server)",
            )
        self.pieces.append(data)

    def take(self, tail: bytes = b"") -> bytes:
        """What is pending followed by `tail`; nothing is pending after."""
        if not self.pieces:
            return tail
        self.pieces.append(tail)
        joined = b"".join(self.pieces)
        self.pieces.clear()
        self.size = 0
        return joined

    def last(self, count: int) -> bytes:
        """The last `count` bytes pending (fewer when less is)."""
        out = b""
        for piece in reversed(self.pieces):
            out = piece[-(count - len(out)) :] + out
            if len(out) >= count:
                break
        return out


async def read_capped(response: httpx.Response, what: str = "its answer", limit: int = MAX_BODY) -> bytes:
    """The whole body, or an `LLMStreamError` once it passes `limit` bytes."""
    body = Pending(str(response.url), what, limit)
    async for chunk in response.aiter_bytes():
        body.add(chunk)
    return body.take()


async def read_error(response: httpx.Response) -> bytes:
    """The start of an error's body (`MAX_ERROR_BODY` bytes); the rest is never read."""
    kept: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        kept.append(chunk[: MAX_ERROR_BODY - size])
        size += len(kept[-1])
        if size >= MAX_ERROR_BODY:
            break
    return b"".join(kept)


def make_client(timeout_s: float, connect_timeout_s: float, verify: ssl.SSLContext | bool = True) -> httpx.AsyncClient:
    """A client whose read timeout is the longest wait for the next byte (models can take a while to load); `verify`
    is llm.ca_file's context (llm/wire.py) or httpx's default (SSL_CERT_FILE, SSL_CERT_DIR, certifi)."""
    return httpx.AsyncClient(timeout=httpx.Timeout(timeout_s, connect=connect_timeout_s), verify=verify)


async def iter_lines(response: httpx.Response) -> AsyncIterator[bytes]:
    """Lines split on `\\n` only (never on read boundaries), each at most `MAX_LINE` bytes; a final unterminated line
    is yielded too."""
    pending = Pending(str(response.url))
    async for chunk in response.aiter_bytes():
        if b"\n" not in chunk:
            pending.add(chunk)
            continue
        lines = pending.take(chunk).split(b"\n")
        pending.add(lines.pop())
        for line in lines:
            yield line[:-1] if line.endswith(b"\r") else line
    tail = pending.take()
    if tail.strip():
        yield tail.rstrip(b"\r")


def error_detail(body: bytes) -> tuple[str, dict[str, Any]]:
    """The message of any server's error body (Ollama flat, llama.cpp/Ollama-v1 nested, vLLM flat) and its fields."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return (text[:500] or "(empty body)"), {}
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict):
            return str(err.get("message") or err), err
        if isinstance(err, str):
            return err, data
        if "message" in data:
            return str(data["message"]), data
    return text[:500], {}


def overflow_error(message: str, fields: dict[str, Any]) -> ContextOverflowError | None:
    """A ContextOverflowError when the server says the prompt does not fit, else None."""
    if fields.get("type") != "exceed_context_size_error" and not _OVERFLOW.search(message):
        return None
    n_ctx = fields.get("n_ctx")
    if not isinstance(n_ctx, int):
        numbers = [int(n) for n in _NUMBER.findall(message)]
        n_ctx = min(numbers) if numbers else None
    prompt = fields.get("n_prompt_tokens")
    return ContextOverflowError(
        f"the prompt does not fit the model's context window: {message}",
        prompt_tokens=prompt if isinstance(prompt, int) else None,
        n_ctx=n_ctx,
    )


def raise_http_error(url: str, status: int, body: bytes, headers: httpx.Headers | None = None) -> NoReturn:
    message, fields = error_detail(body)
    if status in (400, 413, 500) and (overflow := overflow_error(message, fields)) is not None:
        raise overflow
    raise LLMHTTPError(url, status, message, retry_after_s(headers.get("retry-after") if headers else None))


def retry_after_s(value: str | None) -> float | None:
    """Retry-After in seconds from now: seconds or an HTTP date (RFC 9110); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.UTC)
        seconds = (when - datetime.datetime.now(datetime.UTC)).total_seconds()
    return max(0.0, seconds) if seconds == seconds and seconds < 1e9 else None


def raise_stream_error(url: str, error: Any) -> NoReturn:
    if isinstance(error, dict):
        message, fields = str(error.get("message") or error), error
    else:
        message, fields = str(error), {}
    if (overflow := overflow_error(message, fields)) is not None:
        raise overflow
    raise LLMStreamError(url, message)


def loads(data: bytes | str) -> Any:
    """orjson on the hot path; stdlib on its rare refusals (NaN, ints past 64 bits, lone surrogates) so both accept
    exactly what `json.loads` accepts."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


def decode_json(url: str, line: bytes) -> Any:
    try:
        return loads(line)
    except ValueError:
        raise LLMStreamError(url, f"not JSON: {line[:200].decode('utf-8', 'replace')!r}") from None


@contextmanager
def translate_errors(url: str) -> Iterator[None]:
    """httpx transport errors become LLMConnectionError naming the URL and the cause."""
    try:
        yield
    except LLMError:
        raise
    except httpx.ConnectError as exc:
        raise LLMConnectionError(url, f"connection failed ({exc or 'refused'}); is the server running?") from None
    except httpx.TimeoutException as exc:
        kind = type(exc).__name__.replace("Timeout", " timeout").lower().strip()
        raise LLMConnectionError(url, f"{kind} (no answer in time)") from None
    except httpx.TransportError as exc:
        raise LLMConnectionError(url, f"{type(exc).__name__}: {exc or 'connection lost'}") from None


class HTTPProvider:
    """What both providers share: the base URL, an owned or injected AsyncClient, and JSON requests."""

    base_url: str

    def __init__(
        self,
        base_url: str,
        client: httpx.AsyncClient | None,
        timeout_s: float,
        connect_timeout_s: float,
        headers: dict[str, str] | None = None,
        wire: Wire | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.wire = wire or Wire()  # llm.headers on every request, the CA bundle, the session header, priority
        self._headers = {**self.wire.headers, **(headers or {})}
        self._owns_client = client is None
        self._client = client or make_client(timeout_s, connect_timeout_s, self.wire.verify)

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()

    async def _request_json(self, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
        with translate_errors(url):
            async with self._client.stream(method, url, json=body, headers=self._headers) as response:
                if response.status_code != 200:
                    raise_http_error(url, response.status_code, await read_error(response), response.headers)
                content = await read_capped(response)
        return decode_json(url, content)
