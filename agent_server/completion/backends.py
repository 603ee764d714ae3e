"""Fill-in-the-middle over HTTP, one class per server family; each streams the middle's text piece by piece.

Streaming is what makes cancellation real: closing the async generator (a newer keystroke, `$/cancelRequest`, or
the block having ended) closes the HTTP response, and llama.cpp and Ollama stop generating when the client is gone.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

import httpx

from ..llm._http import HTTPProvider, decode_json, iter_lines, json_body, raise_http_error, read_error, translate_errors
from ..llm._http import raise_stream_error as _stream_error
from .templates import FimTemplate, family_of
from .types import FimRequest, FimSupport

# Ollama truncates silently at its default window; one fixed size keeps the model loaded between requests (a
# different num_ctx per request would reload it).
OLLAMA_NUM_CTX = 4096


class FimBackend(Protocol):
    name: str
    base_url: str
    model: str

    def stream(self, req: FimRequest) -> AsyncIterator[str]: ...

    async def check(self) -> FimSupport: ...

    async def aclose(self) -> None: ...


def _root(url: str) -> str:
    url = url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


class _Base(HTTPProvider):
    name = "base"

    def __init__(
        self, base_url: str, model: str, client: httpx.AsyncClient | None, timeout_s: float, api_key: str | None
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
        super().__init__(_root(base_url), client, timeout_s, min(timeout_s, 5.0), headers)
        self.model = model

    async def _lines(self, url: str, body: dict[str, Any]) -> AsyncIterator[bytes]:
        with translate_errors(url):
            async with self._client.stream("POST", url, **json_body(body, self._headers)) as response:
                if response.status_code != 200:
                    raise_http_error(url, response.status_code, await read_error(response))
                async for line in iter_lines(response):  # lines of at most MAX_LINE bytes
                    if line.strip():
                        yield line


class LlamaCppInfill(_Base):
    """llama.cpp `/infill`: the server writes the model's own FIM prompt and puts `input_extra` (other files) before
    it; `cache_prompt` keeps the evaluated prompt in the slot, so an unchanged head costs nothing next time."""

    name = "llamacpp"
    last_timings: dict[str, Any] | None = None  # llama.cpp's `timings` of the last answer (cache_n, prompt_ms, …)

    def body(self, req: FimRequest) -> dict[str, Any]:
        return {
            "input_prefix": req.prefix[: len(req.prefix) - len(req.line_prefix)],
            "prompt": req.line_prefix,
            "input_suffix": req.suffix,
            "input_extra": [{"filename": c.path, "text": c.text} for c in req.extra],
            "n_predict": req.max_tokens,
            "n_indent": req.indent,
            "temperature": req.temperature,
            "top_k": 40,
            "top_p": 0.99,
            "samplers": ["top_k", "top_p", "infill"],
            "stream": True,
            "cache_prompt": True,
        }

    async def stream(self, req: FimRequest) -> AsyncIterator[str]:
        url = self.base_url + "/infill"
        async for line in self._lines(url, self.body(req)):
            if not line.startswith(b"data:"):
                continue
            data = decode_json(url, line[5:].strip())
            if isinstance(data, dict) and "error" in data:
                _stream_error(url, data["error"])
            if isinstance(data, dict) and isinstance(data.get("timings"), dict):
                self.last_timings = data["timings"]
            content = data.get("content") if isinstance(data, dict) else None
            if isinstance(content, str) and content:
                yield content
            if isinstance(data, dict) and data.get("stop"):
                return

    async def check(self) -> FimSupport:
        """A one-token infill: llama.cpp answers 501 "Infill is not supported by this model" without FIM tokens."""
        url = self.base_url + "/infill"
        body = {"input_prefix": "", "input_suffix": "", "prompt": "x", "n_predict": 1, "cache_prompt": False}
        try:
            with translate_errors(url):
                async with self._client.stream("POST", url, **json_body(body, self._headers)) as response:
                    status = response.status_code  # the answer itself is not needed, and not read
                    text = "" if status == 200 else (await read_error(response)).decode("utf-8", "replace")[:300]
        except Exception as exc:
            return FimSupport(False, str(exc))
        if status == 200:
            return FimSupport(True)
        return FimSupport(False, f"the llama.cpp server at {self.base_url} refuses /infill ({status}: {text})")


class OllamaGenerate(_Base):
    """Ollama `/api/generate`: the family's own tokens in a raw prompt when the model name says which family
    (extra context included), else `suffix` through the model's template (capability `insert`)."""

    name = "ollama"

    def __init__(self, *args: Any, template: FimTemplate | None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.template = template

    def body(self, req: FimRequest) -> dict[str, Any]:
        options: dict[str, Any] = {"num_predict": req.max_tokens, "temperature": req.temperature}
        options["num_ctx"] = OLLAMA_NUM_CTX
        body: dict[str, Any] = {"model": self.model, "stream": True, "options": options}
        if self.template is not None:
            body.update(prompt=self.template.render(req), raw=True)
            options["stop"] = list(self.template.stop)
        else:
            body.update(prompt=req.prefix, suffix=req.suffix)
        return body

    async def stream(self, req: FimRequest) -> AsyncIterator[str]:
        url = self.base_url + "/api/generate"
        async for line in self._lines(url, self.body(req)):
            data = decode_json(url, line)
            if not isinstance(data, dict):
                continue
            if "error" in data:
                _stream_error(url, data["error"])
            piece = data.get("response")
            if isinstance(piece, str) and piece:
                yield piece
            if data.get("done"):
                return

    async def check(self) -> FimSupport:
        if self.template is not None:
            return FimSupport(True)
        url = self.base_url + "/api/show"
        try:
            info = await self._request_json("POST", url, {"model": self.model})
        except Exception as exc:
            return FimSupport(False, str(exc))
        caps = info.get("capabilities") if isinstance(info, dict) else None
        if isinstance(caps, list) and "insert" in caps:
            return FimSupport(True)
        return FimSupport(
            False,
            f"'{self.model}' on Ollama cannot fill in the middle (no 'insert' capability, and its name names no FIM "
            "family); set completion.model to a coder model such as qwen2.5-coder:1.5b-base",
        )


class OpenAICompletions(_Base):
    """`/v1/completions` of an OpenAI-compatible server: a raw FIM prompt in the family's tokens, or `suffix` for
    servers that honour it (`completion.fim_template = "server"`)."""

    name = "openai"

    def __init__(self, *args: Any, template: FimTemplate | None, server_suffix: bool, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.template = template
        self.server_suffix = server_suffix

    def body(self, req: FimRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": req.max_tokens,
            "temperature": req.temperature,
            "stream": True,
        }
        if self.template is not None:
            body.update(prompt=self.template.render(req), stop=list(self.template.stop)[:4])  # OpenAI allows 4
        else:
            body.update(prompt=req.prefix, suffix=req.suffix)
        return body

    async def stream(self, req: FimRequest) -> AsyncIterator[str]:
        url = self.base_url + "/v1/completions"
        async for line in self._lines(url, self.body(req)):
            if not line.startswith(b"data:"):
                continue
            payload = line[5:].strip()
            if payload == b"[DONE]":
                return
            data = decode_json(url, payload)
            if isinstance(data, dict) and "error" in data:
                _stream_error(url, data["error"])
            choices = data.get("choices") if isinstance(data, dict) else None
            if isinstance(choices, list) and choices and isinstance(choices[0], dict):
                text = choices[0].get("text")
                if isinstance(text, str) and text:
                    yield text

    async def check(self) -> FimSupport:
        if self.template is not None or self.server_suffix:
            return FimSupport(True)
        return FimSupport(
            False,
            f"cannot tell how '{self.model}' fills in the middle on {self.base_url}: its name names no FIM family. "
            'Set completion.fim_template (qwen, starcoder, codellama, deepseek, codestral, codegemma) or "server" '
            "if the server takes `suffix`",
        )


def describe(backend: FimBackend) -> str:
    """One line for `doctor`: which endpoint and prompt format completion uses."""
    template = getattr(backend, "template", None)
    if backend.name == "llamacpp":
        how = "/infill (the server's FIM format, input_extra)"
    elif template is not None:
        how = f"{'/api/generate raw' if backend.name == 'ollama' else '/v1/completions'} prompt, {template.name} tokens"
    else:
        how = "/api/generate with suffix" if backend.name == "ollama" else "/v1/completions with suffix"
    family = family_of(backend.model) or "unknown family"
    return f"{backend.name} at {backend.base_url}, model {backend.model} ({family}): {how}"
