"""OpenAI-compatible servers (llama.cpp, LM Studio, vLLM, Ollama /v1): POST /v1/chat/completions streamed as SSE
(parsed in openai_stream.py), the model list, model facts from the server's own endpoints, embeddings."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import httpx

from ..errors import LLMStreamError
from ..messages import (
    Message,
    StreamEvent,
)
from ._http import (
    HTTPProvider,
    decode_json,
    json_body,
    loads,
    raise_http_error,
    read_capped,
    read_error,
    translate_errors,
)
from .base import ChatRequest, ModelInfo
from .openai_stream import SSEChat, StreamState
from .router import is_router, routed_info
from .server_facts import apply_llamacpp_props, apply_lmstudio_model, props_describe
from .wire import Wire

log = logging.getLogger(__name__)
PROBE_TIMEOUT_S = 3.0


def message_to_wire(msg: Message, replay: bool = False) -> dict[str, Any]:
    """OpenAI history: string arguments, `content: null` beside tool calls, results keyed by `tool_call_id`; with
    `replay`, an answer's reasoning as `reasoning_content` (llama.cpp, vLLM, LM Studio; the template decides)."""
    out: dict[str, Any] = {"role": msg.role, "content": msg.content}
    if replay and msg.role == "assistant" and msg.thinking:
        out["reasoning_content"] = msg.thinking
    if msg.images:
        # Content parts: the text, then each picture as a data URL (llama.cpp with --mmproj, LM Studio, vLLM).
        parts: list[dict[str, Any]] = [{"type": "text", "text": msg.content}] if msg.content else []
        for image in msg.images:
            url = f"data:{image.mime_type};base64,{image.data}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
        out["content"] = parts
    if msg.role == "assistant" and msg.tool_calls:
        out["content"] = msg.content or None
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in msg.tool_calls
        ]
    if msg.role == "tool":
        out["tool_call_id"] = msg.tool_call_id or ""
        if msg.tool_name:
            out["name"] = msg.tool_name
    return out


def build_payload(request: ChatRequest) -> dict[str, Any]:
    o = request.options
    payload: dict[str, Any] = {
        "model": request.model,
        "messages": [message_to_wire(m, o.replay_reasoning) for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    extra = {"max_tokens": o.max_tokens, "temperature": o.temperature, "top_p": o.top_p, "seed": o.seed, "stop": o.stop}
    payload.update({k: v for k, v in extra.items() if v is not None})
    if o.progress:
        payload["return_progress"] = True  # llama.cpp; other servers would reject an unknown field
    if isinstance(o.think, str):
        payload["reasoning_effort"] = o.think
    elif o.think is False:
        payload["chat_template_kwargs"] = {"enable_thinking": False}
    if request.tools:
        payload["tools"] = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in request.tools
        ]
        if o.tool_choice:
            payload["tool_choice"] = o.tool_choice
    return payload


def api_root(base_url: str) -> str:
    base = base_url.rstrip("/")
    return base if base.endswith("/v1") else base + "/v1"


class OpenAIProvider(HTTPProvider):
    """Any OpenAI-compatible server; `base_url` may be the root (`http://127.0.0.1:1234`) or end in `/v1`."""

    name = "openai"

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:1234",
        api_key: str | None = None,
        client: httpx.AsyncClient | None = None,
        timeout_s: float = 300.0,
        connect_timeout_s: float = 5.0,
        wire: Wire | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        super().__init__(base_url, client, timeout_s, connect_timeout_s, headers, wire)
        self.api_root = api_root(base_url)

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        url = self.api_root + "/chat/completions"
        turn = StreamState(url)
        payload = build_payload(request) | self.wire.priority_field(request.purpose)
        headers = {**self.wire.request_headers(request), **self._headers, "Accept": "text/event-stream"}
        body = json_body(payload, headers)
        with translate_errors(url):
            async with self._client.stream("POST", url, **body) as response:
                if response.status_code != 200:
                    raise_http_error(url, response.status_code, await read_error(response), response.headers)
                if "text/event-stream" not in response.headers.get("content-type", "text/event-stream"):
                    # The server ignored stream:true and sent one completion object.
                    for event in turn.chunk(decode_json(url, await read_capped(response))):
                        yield event
                    turn.done = True
                else:
                    parser = SSEChat(turn)
                    async for chunk in response.aiter_bytes():
                        for event in parser.feed(chunk):
                            yield event
                        if turn.done:
                            break
                    for event in parser.close():
                        yield event
        if not turn.done and turn.finish is None:
            raise LLMStreamError(url, "the stream ended before a finish_reason or [DONE]")
        for event in turn.flush_calls():
            yield event
        yield turn.final()

    async def _get_json(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return await self._request_json(method, self.api_root + path, body)

    async def list_models(self) -> list[ModelInfo]:
        data = await self._get_json("GET", "/models")
        out = []
        for m in data.get("data") or []:
            meta = m.get("meta") if isinstance(m.get("meta"), dict) else {}
            # llama.cpp: `n_ctx` is the window it runs (per slot), `n_ctx_train` only what the model was trained for.
            ctx = meta.get("n_ctx") or meta.get("n_ctx_train") or m.get("max_context_length") or m.get("context_length")
            details = {k: v for k, v in m.items() if k not in ("id", "object")}
            out.append(
                ModelInfo(name=str(m.get("id")), context_length=ctx if isinstance(ctx, int) else None, details=details)
            )
        return out

    async def model_info(self, model: str) -> ModelInfo:
        """The listed entry, corrected by what llama.cpp's `/props` or LM Studio's `/api/v0/models` report."""
        listed = await self.list_models()
        info = next((m for m in listed if m.name == model), None) or ModelInfo(name=model)
        root = self.api_root[: -len("/v1")]
        props = await self._probe_json(root + "/props")
        if is_router(props):  # llama.cpp's router: each model has its own /props (and window) behind ?model=
            return await routed_info(self._probe_json, root, info)
        if props is not None and props_describe(props, model, len(listed)):
            return apply_llamacpp_props(info, props)
        entry = await self._probe_json(root + "/api/v0/models/" + quote(model, safe=""))
        if entry is not None and entry.get("id") == model:
            return apply_lmstudio_model(info, entry)
        return info

    async def _probe_json(self, url: str) -> dict[str, Any] | None:
        """A JSON object from an endpoint only some servers have; None on any failure (most servers lack it)."""
        try:
            response = await self._client.get(url, headers=self._headers, timeout=PROBE_TIMEOUT_S)
        except httpx.HTTPError:
            return None
        if response.status_code != 200:
            return None
        try:
            data = loads(response.content)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    async def embed(self, model: str, inputs: list[str]) -> list[list[float]]:
        body = {"model": model, "input": inputs, **self.wire.priority_field("embedding")}
        data = await self._get_json("POST", "/embeddings", body)
        items = sorted(data.get("data") or [], key=lambda d: d.get("index", 0))
        if len(items) != len(inputs):
            raise LLMStreamError(self.api_root + "/embeddings", f"asked for {len(inputs)} embeddings, got {len(items)}")
        return [list(d["embedding"]) for d in items]
