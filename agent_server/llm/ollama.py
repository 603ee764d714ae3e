"""Ollama's native API: POST /api/chat streamed as NDJSON, plus /api/tags, /api/show and /api/embed."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson

from ..errors import LLMStreamError
from ..messages import (
    Finish,
    FinishReason,
    Message,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolCallEvent,
    Usage,
)
from ._http import (
    HTTPProvider,
    Pending,
    decode_json,
    json_body,
    raise_http_error,
    raise_stream_error,
    read_error,
    translate_errors,
)
from .base import ChatRequest, ModelInfo
from .wire import Wire

EMBED_BATCH = 64


def new_call_id() -> str:
    return "call_" + uuid.uuid4().hex[:8]


def message_to_wire(msg: Message, replay: bool = False) -> dict[str, Any]:
    """Native history: tool-call arguments as objects, tool results carry `tool_name`; with `replay`, an answer's
    reasoning as `thinking` (Ollama's template for the model decides where it goes)."""
    out: dict[str, Any] = {"role": msg.role, "content": msg.content}
    if replay and msg.role == "assistant" and msg.thinking:
        out["thinking"] = msg.thinking
    if msg.images:
        out["images"] = [image.data for image in msg.images]  # bare base64: Ollama sniffs the format itself
    if msg.role == "assistant" and msg.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "function": {"index": i, "name": c.name, "arguments": c.arguments}}
            for i, c in enumerate(msg.tool_calls)
        ]
    if msg.role == "tool":
        if msg.tool_name:
            out["tool_name"] = msg.tool_name
        if msg.tool_call_id:
            out["tool_call_id"] = msg.tool_call_id
    return out


def build_payload(request: ChatRequest, keep_alive: str | int | None = None) -> dict[str, Any]:
    o = request.options
    options = {
        "num_ctx": o.num_ctx,
        "num_predict": o.max_tokens,
        "temperature": o.temperature,
        "top_p": o.top_p,
        "seed": o.seed,
        "stop": o.stop,
    }
    payload: dict[str, Any] = {
        "model": request.model,
        "messages": [message_to_wire(m, o.replay_reasoning) for m in request.messages],
        "stream": True,
    }
    if opts := {k: v for k, v in options.items() if v is not None}:
        payload["options"] = opts
    if request.tools:
        payload["tools"] = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in request.tools
        ]
    if o.think is not None:
        payload["think"] = o.think
    alive = o.keep_alive if o.keep_alive is not None else keep_alive
    if alive is not None:
        payload["keep_alive"] = alive
    return payload


def parse_tool_call(raw: Any) -> ToolCall:
    """A whole native call; tolerates string arguments and a missing id/index."""
    raw = raw if isinstance(raw, dict) else {}
    fn = raw.get("function") if isinstance(raw.get("function"), dict) else raw
    name = str(fn.get("name") or "")
    args = fn.get("arguments", fn.get("parameters"))
    call = ToolCall(id=str(raw.get("id") or new_call_id()), name=name)
    if isinstance(args, dict):
        call.arguments = args
    elif isinstance(args, str) and args.strip():
        try:
            parsed = json.loads(args)
        except ValueError as exc:
            call.arguments_error = f"arguments are not valid JSON ({exc}): {args[:200]}"
        else:
            if isinstance(parsed, dict):
                call.arguments = parsed
            else:
                call.arguments_error = f"arguments must be a JSON object, got: {args[:200]}"
    elif args is not None and not isinstance(args, str):
        call.arguments_error = f"arguments must be a JSON object, got: {json.dumps(args)[:200]}"
    return call


def usage_from_metrics(obj: dict[str, Any]) -> Usage:
    def num(key: str) -> float:
        value = obj.get(key)
        return float(value) if isinstance(value, int | float) else 0.0

    return Usage(
        prompt_tokens=int(num("prompt_eval_count")),
        completion_tokens=int(num("eval_count")),
        total_duration_ms=num("total_duration") / 1e6,
        load_duration_ms=num("load_duration") / 1e6,
        prompt_eval_duration_ms=num("prompt_eval_duration") / 1e6,
        eval_duration_ms=num("eval_duration") / 1e6,
    )


def finish_reason(done_reason: Any, had_calls: bool) -> FinishReason:
    if done_reason == "length":
        return "length"
    # Ollama keeps "stop" for a turn that produced tool calls.
    return "tool_calls" if had_calls else "stop"


def capabilities_info(name: str, caps: Any, details: dict[str, Any]) -> ModelInfo:
    info = ModelInfo(name=name, details=details)
    if isinstance(caps, list):
        info.supports_tools = "tools" in caps
        info.supports_thinking = "thinking" in caps
        info.supports_embeddings = "embedding" in caps
        info.supports_vision = "vision" in caps
    return info


class OllamaProvider(HTTPProvider):
    """Ollama native; `base_url` like `http://127.0.0.1:11434`."""

    name = "ollama"

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:11434",
        client: httpx.AsyncClient | None = None,
        timeout_s: float = 300.0,
        connect_timeout_s: float = 5.0,
        keep_alive: str | int | None = None,
        wire: Wire | None = None,
    ) -> None:
        super().__init__(base_url, client, timeout_s, connect_timeout_s, wire=wire)
        self.keep_alive = keep_alive

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        url = self.base_url + "/api/chat"
        parser = NDJSONChat(url)
        with translate_errors(url):
            headers = {**self.wire.request_headers(request), **self._headers}  # a proxy's headers, the session's
            body = json_body(build_payload(request, self.keep_alive), headers)
            async with self._client.stream("POST", url, **body) as response:
                if response.status_code != 200:
                    raise_http_error(url, response.status_code, await read_error(response), response.headers)
                async for chunk in response.aiter_bytes():
                    for event in parser.feed(chunk):
                        yield event
                    if parser.finished:
                        return
                for event in parser.close():
                    yield event
        if not parser.finished:
            raise LLMStreamError(url, "the stream ended before the final done:true line")

    async def _get_json(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return await self._request_json(method, self.base_url + path, body)

    async def list_models(self) -> list[ModelInfo]:
        data = await self._get_json("GET", "/api/tags")
        out = []
        for m in data.get("models") or []:
            out.append(
                capabilities_info(str(m.get("name") or m.get("model")), m.get("capabilities"), m.get("details") or {})
            )
        return out

    async def model_info(self, model: str) -> ModelInfo:
        data = await self._get_json("POST", "/api/show", {"model": model})
        info = capabilities_info(model, data.get("capabilities"), data.get("details") or {})
        model_info = data.get("model_info") or {}
        arch = model_info.get("general.architecture")
        ctx = model_info.get(f"{arch}.context_length")
        if not isinstance(ctx, int):
            ctx = next((v for k, v in model_info.items() if k.endswith(".context_length") and isinstance(v, int)), None)
        info.context_length = ctx
        return info

    async def embed(self, model: str, inputs: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(inputs), EMBED_BATCH):
            batch = inputs[start : start + EMBED_BATCH]
            data = await self._get_json("POST", "/api/embed", {"model": model, "input": batch})
            got = data.get("embeddings") or []
            if len(got) != len(batch):
                raise LLMStreamError(self.base_url + "/api/embed", f"asked for {len(batch)} embeddings, got {len(got)}")
            vectors.extend(got)
        return vectors


class NDJSONChat:
    """Incremental parser of an /api/chat body: bytes in, events out (lines are split on `\\n` only)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.pending = Pending(url)  # the line not ended yet: at most MAX_LINE bytes
        self.had_calls = False
        self.finished = False

    def feed(self, chunk: bytes) -> list[StreamEvent]:
        if b"\n" not in chunk:
            self.pending.add(chunk)
            return []
        lines = self.pending.take(chunk).split(b"\n")
        self.pending.add(lines.pop())
        out: list[StreamEvent] = []
        for line in lines:
            if self.finished:
                break
            # Decoded inline, with orjson called directly: this loop runs once per token.
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                if not line.strip():  # blank lines are rare, so they are noticed here, not tested for each line
                    continue
                obj = decode_json(self.url, line)
            self._object(obj, line, out)
        return out

    def close(self) -> list[StreamEvent]:
        """The last line may lack its newline (or the server sent one non-streamed object)."""
        out: list[StreamEvent] = []
        rest = self.pending.take()
        if rest.strip() and not self.finished:
            self._object(decode_json(self.url, rest), rest, out)
        return out

    def _object(self, obj: Any, line: bytes, out: list[StreamEvent]) -> None:
        if type(obj) is not dict:
            raise LLMStreamError(self.url, f"unexpected line: {line[:200]!r}")
        if "error" in obj:
            raise_stream_error(self.url, obj["error"])
        if msg := obj.get("message"):
            if thinking := msg.get("thinking"):
                out.append(ThinkingDelta(thinking if type(thinking) is str else str(thinking)))
            if content := msg.get("content"):
                out.append(TextDelta(content if type(content) is str else str(content)))
            if calls := msg.get("tool_calls"):
                for raw in calls:
                    self.had_calls = True
                    out.append(ToolCallEvent(parse_tool_call(raw)))
        if obj.get("done"):
            out.append(Finish(finish_reason(obj.get("done_reason"), self.had_calls), usage_from_metrics(obj)))
            self.finished = True
