"""A faithful fake LLM server: Ollama native (`/api/*`, NDJSON) and OpenAI-compatible (`/v1/*`, SSE) on loopback.

Real HTTP/1.1 over raw asyncio streams, so the framing is under test control (lines split across TCP writes, several
SSE events in one write, a slow first byte, detecting a client that hangs up). The server runs its own event loop in a
background thread, so it serves sync tests, async tests and subprocesses alike.

    fake = FakeLLMServer(); fake.start()            # or: with FakeLLMServer() as fake: ...
    fake.url                                        # "http://127.0.0.1:PORT"
    fake.models = [FakeModel("qwen3:8b", context_length=32768, capabilities=["completion", "tools", "thinking"])]
    fake.script(Reply.text("Hello world", pieces=3), Reply.tool_call("read_file", {"path": "a.py"}))
    fake.default_reply = Reply.text("ok")           # used when the queue is empty
    fake.requests                                   # list[RecordedRequest]
    fake.wait_for_requests(2, timeout=5)
    fake.requests[0].wait_done(5); fake.requests[0].disconnected   # True if the client hung up mid-stream

Fill-in-the-middle (`/infill`, `/api/generate`, `/v1/completions`) consumes a reply too: its `Text` steps are the
middle, streamed in the path's own framing (`Delay` steps pause it, so a cancelled completion can be observed);
`fake.fim_by_line` answers by the text before the cursor instead (CLI: `--fim-by-line file.json`).

One scripted `Reply` is consumed per chat request on either `/api/chat` (NDJSON) or `/v1/chat/completions` (SSE): the
path picks the framing, `"stream": false` in the request picks a single JSON object. A reply is a list of steps
(`Text`, `Thinking`, `Both`, `ToolCalls`, `Delay`, `StreamError`, `Comment`, `Raw`, `Flood`) plus framing knobs; an HTTP error
is a reply too (`Reply.ollama_error`, `Reply.llamacpp_error`, `Reply.ollama_v1_error`, `Reply.vllm_error`).

Request-driven behaviour as the real servers: empty `messages` on /api/chat answers `done_reason:"load"` (`"unload"`
with `keep_alive:0`); history with string tool arguments on /api/chat gets 400 `Value looks like object...`;
`top_logprobs` > 20 gets 400; the OpenAI usage chunk is sent only with `stream_options.include_usage`.
`fake.flavor = "ollama" | "openai"` hides the other family's routes (404), e.g. to test auto-detection.

CLI (for editor tests that need a process): `python -m tests.fakes.fake_llm --port P [--script file.json]` prints
`READY <url>` on stdout. The script is a JSON list of replies in `Reply.from_dict` form. While running, `GET
/_fake/requests` returns the recorded requests and `POST /_fake/script` (a JSON list of replies) queues more.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import hashlib
import json
import math
import re
import ssl
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote


def render_template(body: dict[str, Any]) -> str:
    """The fake's chat template (for /apply-template): tools, then one line per message, so a longer history renders
    to a longer text with the same start, as real templates do."""
    head = _dumps(body.get("tools") or [])
    lines = [
        f"<|{m.get('role')}|>{m.get('content') or ''}{_dumps(m.get('tool_calls') or [])}"
        for m in body.get("messages") or []
    ]
    return head + "\n" + "\n".join(lines)


# --- model metadata ---------------------------------------------------------------------------------------


@dataclass
class FakeModel:
    """One model the fake lists; drives /api/tags, /api/show, /api/ps and /v1/models."""

    name: str = "qwen3:8b"
    context_length: int = 32768
    capabilities: list[str] = field(default_factory=lambda: ["completion", "tools", "thinking"])
    architecture: str = "qwen3"
    parameter_size: str = "8.2B"
    quantization_level: str = "Q4_K_M"
    loaded_context_length: int = 4096  # what /api/ps reports as allocated
    v1_extra: dict[str, Any] = field(default_factory=dict)  # merged into the /v1/models entry, e.g. {"meta": None}


# --- reply steps ------------------------------------------------------------------------------------------


@dataclass
class Text:
    text: str


@dataclass
class Thinking:
    text: str


@dataclass
class Both:
    """One Ollama line (or one OpenAI delta) carrying thinking and content together."""

    thinking: str
    text: str


@dataclass
class FakeToolCall:
    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)  # a str is sent verbatim (buggy models)
    id: str | None = None


@dataclass
class ToolCalls:
    """Tool calls. Ollama sends them whole; `style` picks the OpenAI delta shape."""

    calls: list[FakeToolCall]
    # OpenAI: "fragments" (id/name on the first piece, argument pieces after), "whole" (one delta per call),
    # "object" (arguments as a JSON object), "late_name" (name arrives after the first argument piece),
    # "interleaved" (fragments of all calls alternate by index).
    style: Literal["fragments", "whole", "object", "late_name", "interleaved"] = "fragments"
    fragments: int = 3
    one_line: bool = True  # Ollama: all calls on one line, else one line per call
    ids: bool = True  # Ollama: send `id` and `function.index` (older servers send neither)


@dataclass
class Delay:
    seconds: float


@dataclass
class StreamError:
    """An error inside a 200 stream; the stream ends after it."""

    message: str
    # OpenAI: "data" = `data: {"error":{...}}` (llama.cpp since PR #16109), "legacy" = `error: {...}` line.
    style: Literal["data", "legacy"] = "data"
    error: dict[str, Any] | None = (
        None  # full OpenAI error object; default {"code":500,"message":..,"type":"server_error"}
    )


@dataclass
class Comment:
    """An SSE comment line (`: ping`); ignored in NDJSON."""

    text: str = "ping"


@dataclass
class Raw:
    """Bytes written as-is, in their own write."""

    data: str


@dataclass
class Flood:
    """`piece` repeated for `size` bytes, written as fast as the client reads (a line or event that never ends when
    `piece` has no newline); it stops when the client hangs up."""

    piece: str = "x"
    size: int = 256 * 1024 * 1024


Step = Text | Thinking | Both | ToolCalls | Delay | StreamError | Comment | Raw | Flood


@dataclass
class FakeUsage:
    # None = what a real server reports: 10, plus the tool definitions' size when the request has tools (and the reply
    # does not `drops_tools`, as a chat template that cannot render tools does).
    prompt_tokens: int | None = None
    completion_tokens: int = 5
    cached_tokens: int = 0
    total_duration_ns: int = 50_000_000
    load_duration_ns: int = 1_000_000
    prompt_eval_duration_ns: int = 10_000_000
    eval_duration_ns: int = 30_000_000


@dataclass
class Reply:
    """One scripted answer to one chat request."""

    steps: list[Step] = field(default_factory=list)
    done_reason: str = "stop"  # Ollama; stays "stop" with tool calls, as the real server does
    finish_reason: str | None = None  # OpenAI; None = "tool_calls" when calls were sent, else done_reason
    usage: FakeUsage = field(default_factory=FakeUsage)  # Ollama metrics are left out when zero
    timings: dict[str, Any] | None = None  # llama.cpp: attached to the last chunk
    status: int = 200
    error_body: Any = None  # the body when status != 200 (dict -> JSON, str -> text)
    first_byte_delay: float = 0.0  # seconds before the status line (model load)
    role_chunk: Literal["null", "empty", "none"] = "null"  # OpenAI: first delta content null (llama.cpp) / "" / absent
    reasoning_field: Literal["reasoning_content", "reasoning", "both"] = "reasoning_content"
    split_writes: bool = False  # every line/event is written in two halves
    coalesce: int = 1  # lines/events per TCP write; 0 = the whole body in one write
    done_marker: Literal["blank", "no_blank", "none"] = "blank"  # OpenAI `data: [DONE]` ending
    comments: bool = False  # OpenAI: a `: ping` comment before every event
    final_line: bool = True  # Ollama: send the done:true line
    ignore_stream: bool = False  # answer with one JSON object even when the request asked to stream
    drops_tools: bool = False  # the prompt leaves the tools out (llama.cpp with a template that cannot render them)
    headers: dict[str, str] = field(default_factory=dict)  # extra response headers of an error (`Retry-After`)
    recorded: str | None = None  # a stream body recorded from a real server, replayed as is (tests/fakes/recorded.py)

    # -- helpers -------------------------------------------------------------------------------------------

    @classmethod
    def text(cls, text: str, pieces: int = 1, **kw: Any) -> Reply:
        """`text` cut into `pieces` roughly equal content steps."""
        return cls(steps=[Text(p) for p in _cut(text, pieces)], **kw)

    @classmethod
    def tool_call(cls, name: str, arguments: dict[str, Any] | str | None = None, **kw: Any) -> Reply:
        style = kw.pop("style", "fragments")
        return cls(steps=[ToolCalls([FakeToolCall(name, {} if arguments is None else arguments)], style=style)], **kw)

    @classmethod
    def stream_pieces(cls, n: int, piece: str = "tok ", coalesce: int = 64) -> Reply:
        """`n` content pieces written as fast as possible (benchmarks)."""
        return cls(steps=[Text(piece)] * n, coalesce=coalesce)

    @classmethod
    def http_error(cls, status: int, body: Any) -> Reply:
        return cls(status=status, error_body=body)

    @classmethod
    def ollama_error(cls, status: int, message: str) -> Reply:
        return cls.http_error(status, {"error": message})

    @classmethod
    def llamacpp_error(cls, status: int, message: str, type: str = "server_error", **extra: Any) -> Reply:
        return cls.http_error(status, {"error": {"code": status, "message": message, "type": type, **extra}})

    @classmethod
    def ollama_v1_error(cls, status: int, message: str, type: str = "api_error") -> Reply:
        return cls.http_error(status, {"error": {"message": message, "type": type, "param": None, "code": None}})

    @classmethod
    def vllm_error(cls, status: int, message: str, type: str = "BadRequestError") -> Reply:
        return cls.http_error(
            status, {"object": "error", "message": message, "type": type, "param": None, "code": status}
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reply:
        """JSON form: {"steps": [{"text": ..} | {"thinking": ..} | {"thinking":..,"text":..} | {"tool_calls": [..],
        "style"?} | {"delay": s} | {"error": msg, "style"?} | {"comment": ..} | {"raw": ..}], ...Reply fields}."""
        data = dict(data)
        if "text" in data and "steps" not in data:
            return cls.text(data.pop("text"), pieces=data.pop("pieces", 1), **data)
        steps: list[Step] = []
        for s in data.pop("steps", []):
            steps.append(_step_from_dict(s))
        if "usage" in data:
            data["usage"] = FakeUsage(**data["usage"])
        return cls(steps=steps, **data)


def _step_from_dict(s: dict[str, Any]) -> Step:
    if "tool_calls" in s:
        calls = [FakeToolCall(c["name"], c.get("arguments", {}), c.get("id")) for c in s["tool_calls"]]
        rest = {k: v for k, v in s.items() if k != "tool_calls"}
        return ToolCalls(calls, **rest)
    if "thinking" in s and "text" in s:
        return Both(s["thinking"], s["text"])
    if "thinking" in s:
        return Thinking(s["thinking"])
    if "text" in s:
        return Text(s["text"])
    if "delay" in s:
        return Delay(float(s["delay"]))
    if "error" in s:
        return StreamError(s["error"], s.get("style", "data"), s.get("error_object"))
    if "comment" in s:
        return Comment(s["comment"])
    if "raw" in s:
        return Raw(s["raw"])
    if "flood" in s:
        return Flood(s["flood"], int(s.get("size", 256 * 1024 * 1024)))
    raise ValueError(f"unknown reply step: {s!r}")


def _cut(text: str, pieces: int) -> list[str]:
    if pieces <= 1 or len(text) <= 1:
        return [text]
    size = math.ceil(len(text) / pieces)
    return [text[i : i + size] for i in range(0, len(text), size)]


# --- recorded requests ------------------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    method: str
    path: str
    json: Any
    headers: dict[str, str]
    body: bytes = b""
    disconnected: bool = False  # the client closed the connection before the response ended
    done: threading.Event = field(default_factory=threading.Event, repr=False)
    # Streamed replies: (time.perf_counter() after the write drained, frames written so far) per TCP write. On Linux
    # perf_counter is CLOCK_MONOTONIC, shared by all processes, so benchmarks can compare it with their own clock.
    writes: list[tuple[float, int]] = field(default_factory=list)
    query: str = ""  # the URL's query string (llama.cpp's /slots/0?action=save)

    def wait_done(self, timeout: float = 5.0) -> bool:
        """Block until the server finished (or abandoned) this response."""
        return self.done.wait(timeout)


class _ClientGone(Exception):
    pass


# --- rendering: Ollama NDJSON -----------------------------------------------------------------------------

_Frame = bytes | Delay | Flood  # one line/event, a pause, or bytes without end


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000000Z", time.gmtime())


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _ollama_metrics(u: FakeUsage) -> dict[str, int]:
    raw = {
        "total_duration": u.total_duration_ns,
        "load_duration": u.load_duration_ns,
        "prompt_eval_count": u.prompt_tokens or 0,
        "prompt_eval_duration": u.prompt_eval_duration_ns,
        "eval_count": u.completion_tokens,
        "eval_duration": u.eval_duration_ns,
    }
    return {k: v for k, v in raw.items() if v}  # omitempty


class _Ids:
    def __init__(self) -> None:
        self.n = 0

    def next(self) -> str:
        self.n += 1
        return "call_" + hashlib.sha1(str(self.n).encode()).hexdigest()[:8]


def _ollama_calls(step: ToolCalls, ids: _Ids, start: int) -> list[dict[str, Any]]:
    out = []
    for i, c in enumerate(step.calls):
        fn: dict[str, Any] = {"name": c.name, "arguments": c.arguments}
        call: dict[str, Any] = {"function": fn}
        if step.ids:
            fn["index"] = start + i
            call = {"id": c.id or ids.next(), "function": fn}
        out.append(call)
    return out


def render_ollama_lines(reply: Reply, model: str) -> list[_Frame]:
    frames: list[_Frame] = []
    ids = _Ids()
    n_calls = 0

    def line(msg: dict[str, Any], done: bool = False, **extra: Any) -> bytes:
        obj = {"model": model, "created_at": _now(), "message": {"role": "assistant", "content": "", **msg}}
        obj["done"] = done
        obj.update(extra)
        return (_dumps(obj) + "\n").encode()

    for step in reply.steps:
        if isinstance(step, Text):
            frames.append(line({"content": step.text}))
        elif isinstance(step, Thinking):
            frames.append(line({"thinking": step.text}))
        elif isinstance(step, Both):
            frames.append(line({"content": step.text, "thinking": step.thinking}))
        elif isinstance(step, ToolCalls):
            calls = _ollama_calls(step, ids, n_calls)
            n_calls += len(calls)
            if step.one_line:
                frames.append(line({"tool_calls": calls}))
            else:
                frames.extend(line({"tool_calls": [c]}) for c in calls)
        elif isinstance(step, Delay):
            frames.append(step)
        elif isinstance(step, StreamError):
            frames.append((_dumps({"error": step.message}) + "\n").encode())
            return frames
        elif isinstance(step, Raw):
            frames.append(step.data.encode())
        elif isinstance(step, Flood):
            frames.append(step)
    if reply.final_line:
        frames.append(line({}, done=True, done_reason=reply.done_reason, **_ollama_metrics(reply.usage)))
    return frames


def render_ollama_full(reply: Reply, model: str) -> dict[str, Any]:
    content, thinking, calls = "", "", []
    ids = _Ids()
    for step in reply.steps:
        if isinstance(step, Text):
            content += step.text
        elif isinstance(step, Thinking):
            thinking += step.text
        elif isinstance(step, Both):
            content += step.text
            thinking += step.thinking
        elif isinstance(step, ToolCalls):
            calls.extend(_ollama_calls(step, ids, len(calls)))
    msg: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking:
        msg["thinking"] = thinking
    if calls:
        msg["tool_calls"] = calls
    out = {"model": model, "created_at": _now(), "message": msg, "done": True, "done_reason": reply.done_reason}
    out.update(_ollama_metrics(reply.usage))
    return out


# --- rendering: OpenAI SSE --------------------------------------------------------------------------------


def _openai_tool_pieces(step: ToolCalls, base_index: int) -> list[dict[str, Any]]:
    """The `delta.tool_calls` lists, one per chunk."""
    chunks: list[dict[str, Any]] = []
    per_call: list[list[dict[str, Any]]] = []
    for i, c in enumerate(step.calls):
        idx = base_index + i
        cid = c.id or f"call_{idx}_{abs(hash(c.name)) % 10**6}"
        args = c.arguments if isinstance(c.arguments, str) else _dumps(c.arguments)
        if step.style == "whole":
            per_call.append(
                [{"index": idx, "id": cid, "type": "function", "function": {"name": c.name, "arguments": args}}]
            )
        elif step.style == "object":
            obj_args: Any = c.arguments
            per_call.append(
                [{"index": idx, "id": cid, "type": "function", "function": {"name": c.name, "arguments": obj_args}}]
            )
        else:
            frags = _cut(args, step.fragments) if args else [""]
            pieces: list[dict[str, Any]] = []
            if step.style == "late_name":
                pieces.append({"index": idx, "function": {"arguments": frags[0]}})
                pieces.append(
                    {"index": idx, "id": cid, "type": "function", "function": {"name": c.name, "arguments": ""}}
                )
                pieces.extend({"index": idx, "function": {"arguments": f}} for f in frags[1:])
            else:
                pieces.append(
                    {"index": idx, "id": cid, "type": "function", "function": {"name": c.name, "arguments": ""}}
                )
                pieces.extend({"index": idx, "function": {"arguments": f}} for f in frags)
            per_call.append(pieces)
    if step.style == "interleaved":
        longest = max(len(p) for p in per_call)
        for k in range(longest):
            chunks.extend(p[k] for p in per_call if k < len(p))
    else:
        for p in per_call:
            chunks.extend(p)
    return chunks


def render_openai_events(reply: Reply, model: str, include_usage: bool) -> list[_Frame]:
    frames: list[_Frame] = []
    base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
    base["system_fingerprint"] = "fp_fake"

    def event(payload: str) -> bytes:
        prefix = ": ping\n\n" if reply.comments else ""
        return (prefix + "data: " + payload + "\n\n").encode()

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        obj = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        return event(_dumps(obj))

    def reasoning(text: str) -> dict[str, Any]:
        if reply.reasoning_field == "both":
            return {"reasoning_content": text, "reasoning": text}
        return {reply.reasoning_field: text}

    if reply.role_chunk != "none":
        frames.append(chunk({"role": "assistant", "content": None if reply.role_chunk == "null" else ""}))
    n_calls = 0
    for step in reply.steps:
        if isinstance(step, Text):
            frames.append(chunk({"content": step.text}))
        elif isinstance(step, Thinking):
            frames.append(chunk(reasoning(step.text)))
        elif isinstance(step, Both):
            frames.append(chunk({**reasoning(step.thinking), "content": step.text}))
        elif isinstance(step, ToolCalls):
            for piece in _openai_tool_pieces(step, n_calls):
                frames.append(chunk({"tool_calls": [piece]}))
            n_calls += len(step.calls)
        elif isinstance(step, Delay):
            frames.append(step)
        elif isinstance(step, Comment):
            frames.append(f": {step.text}\n\n".encode())
        elif isinstance(step, Raw):
            frames.append(step.data.encode())
        elif isinstance(step, Flood):
            frames.append(step)
        elif isinstance(step, StreamError):
            err = step.error or {"code": 500, "message": step.message, "type": "server_error"}
            if step.style == "legacy":
                frames.append(("error: " + _dumps(err) + "\n\n").encode())
            else:
                frames.append(event(_dumps({"error": err})))
            frames.append(b"data: [DONE]\n\n")
            return frames
    finish = reply.finish_reason or ("tool_calls" if n_calls else reply.done_reason)
    last_extra: dict[str, Any] = {"timings": reply.timings} if reply.timings else {}
    frames.append(chunk({}, finish, **({} if include_usage else last_extra)))
    if include_usage:
        u = reply.usage
        usage: dict[str, Any] = {
            "prompt_tokens": u.prompt_tokens or 0,
            "completion_tokens": u.completion_tokens,
            "total_tokens": (u.prompt_tokens or 0) + u.completion_tokens,
        }
        if u.cached_tokens:
            usage["prompt_tokens_details"] = {"cached_tokens": u.cached_tokens}
        frames.append(event(_dumps({**base, "choices": [], "usage": usage, **last_extra})))
    if reply.done_marker == "blank":
        frames.append(b"data: [DONE]\n\n")
    elif reply.done_marker == "no_blank":
        frames.append(b"data: [DONE]\n")
    return frames


def render_openai_full(reply: Reply, model: str) -> dict[str, Any]:
    content, thinking = "", ""
    calls: list[dict[str, Any]] = []
    for step in reply.steps:
        if isinstance(step, Text):
            content += step.text
        elif isinstance(step, Thinking):
            thinking += step.text
        elif isinstance(step, Both):
            content += step.text
            thinking += step.thinking
        elif isinstance(step, ToolCalls):
            for i, c in enumerate(step.calls):
                args = c.arguments if isinstance(c.arguments, str) else _dumps(c.arguments)
                cid = c.id or f"call_{len(calls) + i}"
                calls.append({"type": "function", "function": {"name": c.name, "arguments": args}, "id": cid})
    msg: dict[str, Any] = {"role": "assistant", "content": content or (None if calls else "")}
    if thinking:
        msg["reasoning_content" if reply.reasoning_field != "reasoning" else "reasoning"] = thinking
    if calls:
        msg["tool_calls"] = calls
    u = reply.usage
    out: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": msg,
                "finish_reason": reply.finish_reason or ("tool_calls" if calls else reply.done_reason),
            }
        ],
        "usage": {
            "prompt_tokens": u.prompt_tokens or 0,
            "completion_tokens": u.completion_tokens,
            "total_tokens": (u.prompt_tokens or 0) + u.completion_tokens,
        },
    }
    if reply.timings:
        out["timings"] = reply.timings
    return out


# --- the server -------------------------------------------------------------------------------------------


def fim_line_prefix(path: str, body: dict[str, Any]) -> str:
    """The text before the cursor on its line, from any of the three FIM request shapes (raw prompts in the Qwen,
    StarCoder or CodeLlama tokens, or prefix/suffix fields)."""
    if path == "/infill":
        return str(body.get("input_prefix", "")).split("\n")[-1] + str(body.get("prompt", ""))
    prompt = str(body.get("prompt", ""))
    for start, end in (("<|fim_prefix|>", "<|fim_suffix|>"), ("<fim_prefix>", "<fim_suffix>"), ("<PRE> ", " <SUF>")):
        if start in prompt and end in prompt:
            prompt = prompt.split(start)[-1].split(end)[0]
            break
    return prompt.split("\n")[-1]


def render_fim_frames(reply: Reply, path: str, model: str) -> list[_Frame]:
    """A fill-in-the-middle stream: llama.cpp `/infill` SSE (`content`, `stop`), Ollama `/api/generate` NDJSON
    (`response`, `done`) or OpenAI-compatible `/v1/completions` SSE (`choices[0].text`, `[DONE]`)."""

    def frame(text: str, last: bool) -> bytes:
        if path == "/infill":
            return f"data: {_dumps({'content': text, 'stop': last})}\n\n".encode()
        if path == "/api/generate":
            return (_dumps({"model": model, "created_at": _now(), "response": text, "done": last}) + "\n").encode()
        choice = {"index": 0, "text": text, "finish_reason": "stop" if last else None}
        return f"data: {_dumps({'object': 'text_completion', 'choices': [choice]})}\n\n".encode()

    frames: list[_Frame] = []
    for step in reply.steps:
        if isinstance(step, Delay | Flood):
            frames.append(step)
        elif isinstance(step, Text):
            frames.append(frame(step.text, False))
    frames.append(frame("", True))
    if path == "/v1/completions":
        frames.append(b"data: [DONE]\n\n")
    return frames


def fake_embedding(text: str, dim: int = 8) -> list[float]:
    """A deterministic unit vector per text."""
    digest = hashlib.sha256(text.encode()).digest()
    raw = [(b - 127.5) / 127.5 for b in digest[:dim]]
    norm = math.sqrt(sum(x * x for x in raw)) or 1.0
    return [x / norm for x in raw]


_FUNCTION_WORDS = frozenset(
    "a an and are as at be by for from if in is it of on or so the to we when where with".split()
)


def bag_of_words_embedding(text: str, dim: int = 64, synonyms: Mapping[str, str] | None = None) -> list[float]:
    """A deterministic unit vector that acts like a tiny semantic model: every word (lower case, identifiers split on
    `_` and camelCase, `synonyms` mapped to one spelling, a few function words left out) adds weight to a dimension
    picked by its hash, so texts with words (or synonyms) in common are near each other. Use as `fake.embedding_fn`."""
    words = [w.lower() for part in re.findall(r"[A-Za-z]+", text) for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+", part)]
    vec = [0.0] * dim
    for w in words:
        if w in _FUNCTION_WORDS:
            continue
        w = (synonyms or {}).get(w, w)
        vec[int.from_bytes(hashlib.sha256(w.encode()).digest()[:4], "big") % dim] += 1.0
    norm = math.sqrt(sum(x * x for x in vec)) or 1.0
    return [x / norm for x in vec]


class FakeLLMServer:
    """See the module docstring."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self.models: list[FakeModel] = [FakeModel()]
        self.default_reply: Reply = Reply.text("ok")
        self.requests: list[RecordedRequest] = []
        self.flavor: Literal["both", "ollama", "openai"] = "both"
        self.version = "0.12.6"
        self.embedding_dim = 8
        self.embedding_fn: Callable[[str], list[float]] | None = None  # else fake_embedding(text, embedding_dim)
        # Longer inputs get llama-server's 500 "input (N tokens) is too large" (a 512-token embedding model).
        self.embedding_max_chars: int | None = None
        # llama.cpp's GET /props body (None = 404, as Ollama, vLLM and LM Studio answer), e.g. recorded.props().
        self.props: dict[str, Any] | None = None
        # LM Studio's GET /api/v0/models entries (None = 404), e.g. [{"id": ..., "loaded_context_length": 4096}].
        self.lmstudio_models: list[dict[str, Any]] | None = None
        # llama.cpp's saved slots (--slot-save-path), file name -> tokens; None = 501, a server started without it.
        # Served, with /apply-template (render_template), only while `props` is set (a llama.cpp server).
        self.slot_files: dict[str, int] | None = None
        # GET /slots (while `props` is set): None = one idle slot, as the embedded server runs; more = a shared server.
        self.slot_list: list[dict[str, Any]] | None = None
        # Served over TLS with this context (the URL says https), e.g. a server behind a private CA.
        self.tls: ssl.SSLContext | None = None
        # Fill-in-the-middle answers by the text before the cursor on its line (stripped), ahead of the queue: an
        # editor sends requests whenever it likes, so editor tests answer by where the cursor is, not by order.
        self.fim_by_line: dict[str, Reply] = {}
        # Each chat request body appended to this file as one JSON line (editor tests read what reached the model).
        self.body_log: Path | None = None
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._conns: set[asyncio.Task[None]] = set()

    # -- lifecycle -----------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}:{self.port}"

    def start(self) -> FakeLLMServer:
        ready = threading.Event()
        errors: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                self._server = loop.run_until_complete(
                    asyncio.start_server(self._on_conn, self.host, self.port, ssl=self.tls)
                )
                self.port = self._server.sockets[0].getsockname()[1]
            except BaseException as exc:
                errors.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-llm", daemon=True)
        self._thread.start()
        ready.wait(10)
        if errors:
            raise errors[0]
        return self

    def stop(self) -> None:
        loop, server = self._loop, self._server
        if loop is None or server is None:
            return

        async def shutdown() -> None:
            server.close()
            for task in list(self._conns):
                task.cancel()
            await asyncio.gather(*self._conns, return_exceptions=True)

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(shutdown(), loop).result(5)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread:
            self._thread.join(5)
        self._loop = self._server = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting -----------------------------------------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def clear_script(self) -> int:
        """Drop the replies not sent yet; returns how many there were."""
        with self._lock:
            dropped = len(self._queue)
            self._queue.clear()
            return dropped

    def _next_reply(self) -> Reply:
        with self._lock:
            return self._queue.popleft() if self._queue else self.default_reply

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def set_vision(self, on: bool = True) -> None:
        """The models read images (or not): "vision" in Ollama's /api/show capabilities, and llama.cpp's /props
        `modalities.vision` when `props` is set (as a server started with or without --mmproj answers)."""
        for md in self.models:
            md.capabilities = [c for c in md.capabilities if c != "vision"] + (["vision"] if on else [])
        if self.props is not None:
            self.props["modalities"] = {**(self.props.get("modalities") or {}), "vision": on}

    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith(("/api/chat", "/chat/completions"))]

    def fim_requests(self) -> list[RecordedRequest]:
        """Fill-in-the-middle requests: llama.cpp /infill, Ollama /api/generate, OpenAI-compatible /v1/completions."""
        return [r for r in self.requests if r.path in ("/infill", "/api/generate", "/v1/completions")]

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[RecordedRequest]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.requests) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"expected {n} requests, got {len(self.requests)}")
                self._cond.wait(left)
            return list(self.requests)

    # -- HTTP ----------------------------------------------------------------------------------------------

    async def _on_conn(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._conns.add(task)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                headers: dict[str, str] = {}
                for h in lines[1:]:
                    if ":" in h:
                        k, v = h.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
                try:
                    parsed: Any = json.loads(body) if body else None
                except ValueError:
                    parsed = None
                req = RecordedRequest(method, target.split("?")[0], parsed, headers, body)
                req.query = target.partition("?")[2]
                if self.body_log is not None and req.path.endswith(("/api/chat", "/chat/completions")):
                    with self.body_log.open("a", encoding="utf-8") as fh:
                        fh.write(_dumps({"path": req.path, "json": parsed}) + "\n")
                with self._cond:
                    self.requests.append(req)
                    self._cond.notify_all()
                try:
                    keep = await self._handle(req, reader, writer)
                except (_ClientGone, ConnectionError):
                    req.disconnected = True
                    keep = False
                finally:
                    req.done.set()
                if not keep or headers.get("connection", "").lower() == "close":
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            self._conns.discard(task)
            with contextlib.suppress(Exception):
                writer.close()

    async def _send(
        self,
        writer: asyncio.StreamWriter,
        status: int,
        body: bytes,
        ctype: str = "application/json; charset=utf-8",
        headers: dict[str, str] | None = None,
    ) -> bool:
        head = f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}\r\nContent-Type: {ctype}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        head += (
            f"Content-Length: {len(body)}\r\nDate: {time.strftime('%a, %d %b %Y %H:%M:%S GMT', time.gmtime())}\r\n\r\n"
        )
        writer.write(head.encode() + body)
        await writer.drain()
        return True

    async def _json(self, writer: asyncio.StreamWriter, status: int, obj: Any) -> bool:
        return await self._send(writer, status, _dumps(obj).encode())

    async def _handle(self, req: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        path, m = req.path, req.method
        if path.startswith("/_fake/"):
            return await self._control(req, writer)
        if path == "/props" and self.props is not None:
            return await self._json(writer, 200, self.props)
        if path == "/apply-template" and m == "POST" and self.props is not None:
            return await self._json(writer, 200, {"prompt": render_template(req.json or {})})
        if path.startswith("/slots/") and m == "POST" and self.props is not None:
            return await self._slots(req, writer)
        if path == "/slots" and m == "GET" and self.props is not None:  # llama.cpp's slot list: one slot unless set
            return await self._json(writer, 200, self.slot_list or [{"id": 0, "is_processing": False}])
        if path.startswith("/api/v0/models") and self.lmstudio_models is not None:
            return await self._lmstudio(path, writer)
        if self.flavor == "openai" and (path.startswith("/api/") or path == "/"):
            return await self._send(writer, 404, b"404 page not found", "text/plain")
        if self.flavor == "ollama" and path.startswith("/v1/"):
            return await self._send(writer, 404, b"404 page not found", "text/plain")
        if path == "/" and m in ("GET", "HEAD"):
            return await self._send(writer, 200, b"Ollama is running", "text/plain; charset=utf-8")
        if path == "/api/version":
            return await self._json(writer, 200, {"version": self.version})
        if path == "/api/tags":
            return await self._json(writer, 200, {"models": [self._tag(md) for md in self.models]})
        if path == "/api/ps":
            return await self._json(writer, 200, {"models": [self._ps(md) for md in self.models]})
        if path == "/api/show" and m == "POST":
            return await self._show(req, writer)
        if path in ("/api/embed", "/api/embeddings", "/v1/embeddings") and m == "POST":
            return await self._embed(req, writer)
        if path == "/v1/models":
            return await self._json(writer, 200, {"object": "list", "data": [self._v1_model(md) for md in self.models]})
        if path.startswith("/v1/models/"):
            name = path[len("/v1/models/") :]
            for md in self.models:
                if md.name == name:
                    return await self._json(writer, 200, self._v1_model(md))
            return await self._json(
                writer,
                404,
                {
                    "error": {
                        "message": f"model '{name}' not found",
                        "type": "not_found_error",
                        "param": None,
                        "code": None,
                    }
                },
            )
        if path == "/api/chat" and m == "POST":
            return await self._chat(req, reader, writer, openai=False)
        if path == "/v1/chat/completions" and m == "POST":
            return await self._chat(req, reader, writer, openai=True)
        if path in ("/infill", "/api/generate", "/v1/completions") and m == "POST":
            return await self._fim(req, reader, writer)
        return await self._send(writer, 404, b"404 page not found", "text/plain")

    async def _slots(self, req: RecordedRequest, writer: asyncio.StreamWriter) -> bool:
        """llama.cpp's slot save/restore: the saved 'cache' is the rendered length of the last chat request."""
        if self.slot_files is None:
            error = {
                "code": 501,
                "message": "This server does not support slots action.",
                "type": "not_supported_error",
            }
            return await self._json(writer, 501, {"error": error})
        action = dict(p.partition("=")[::2] for p in req.query.split("&")).get("action")
        name = str((req.json or {}).get("filename", ""))
        if action == "save":
            chats = [r.json for r in self.requests if r.path in ("/v1/chat/completions", "/api/chat")]
            n = len(render_template(chats[-1])) if chats else 0
            self.slot_files[name] = n
            return await self._json(writer, 200, {"id_slot": 0, "filename": name, "n_saved": n, "n_written": n * 64})
        if action == "restore" and name in self.slot_files:
            n = self.slot_files[name]
            return await self._json(writer, 200, {"id_slot": 0, "filename": name, "n_restored": n, "n_read": n * 64})
        error = {"code": 400, "message": "failed to restore slot", "type": "invalid_request_error"}
        return await self._json(writer, 400, {"error": error})

    async def _control(self, req: RecordedRequest, writer: asyncio.StreamWriter) -> bool:
        if req.path == "/_fake/requests":
            out = [
                {"method": r.method, "path": r.path, "json": r.json, "disconnected": r.disconnected, "writes": r.writes}
                for r in self.requests
                if not r.path.startswith("/_fake/")
            ]
            return await self._json(writer, 200, out)
        if req.path == "/_fake/models" and isinstance(req.json, list):  # the models listed from now on
            kept = {md.name: md for md in self.models}
            self.models = [kept.get(str(n)) or FakeModel(name=str(n)) for n in req.json]
            return await self._json(writer, 200, {"models": [md.name for md in self.models]})
        if req.path == "/_fake/script" and isinstance(req.json, list):
            self.script(*(Reply.from_dict(d) for d in req.json))
            return await self._json(writer, 200, {"queued": self.pending})
        if req.path == "/_fake/clear":  # a failed editor scenario's replies must not answer the next one's requests
            return await self._json(writer, 200, {"dropped": self.clear_script()})
        return await self._json(writer, 404, {"error": "unknown control path"})

    async def _lmstudio(self, path: str, writer: asyncio.StreamWriter) -> bool:
        entries = self.lmstudio_models or []
        if path.rstrip("/") == "/api/v0/models":
            return await self._json(writer, 200, {"object": "list", "data": entries})
        name = unquote(path[len("/api/v0/models/") :])
        for entry in entries:
            if entry.get("id") == name:
                return await self._json(writer, 200, entry)
        return await self._json(writer, 404, {"error": f"Model '{name}' not found"})

    def _find(self, name: str) -> FakeModel | None:
        for md in self.models:
            if md.name == name or md.name == f"{name}:latest":
                return md
        return None

    def _tag(self, md: FakeModel) -> dict[str, Any]:
        return {
            "name": md.name,
            "model": md.name,
            "modified_at": "2026-01-01T00:00:00Z",
            "size": 5_000_000_000,
            "digest": hashlib.sha256(md.name.encode()).hexdigest(),
            "details": self._details(md),
            "capabilities": md.capabilities,
        }

    def _details(self, md: FakeModel) -> dict[str, Any]:
        return {
            "parent_model": "",
            "format": "gguf",
            "family": md.architecture,
            "families": [md.architecture],
            "parameter_size": md.parameter_size,
            "quantization_level": md.quantization_level,
        }

    def _ps(self, md: FakeModel) -> dict[str, Any]:
        tag = self._tag(md)
        tag.pop("capabilities")
        return {
            **tag,
            "expires_at": "2026-01-01T00:05:00Z",
            "size_vram": 5_000_000_000,
            "context_length": md.loaded_context_length,
        }

    def _v1_model(self, md: FakeModel) -> dict[str, Any]:
        return {"id": md.name, "object": "model", "created": 1767225600, "owned_by": "library", **md.v1_extra}

    async def _show(self, req: RecordedRequest, writer: asyncio.StreamWriter) -> bool:
        name = (req.json or {}).get("model") or (req.json or {}).get("name") or ""
        md = self._find(name)
        if md is None:
            return await self._json(writer, 404, {"error": f"model '{name}' not found"})
        info = {
            "general.architecture": md.architecture,
            "general.parameter_count": 8_190_735_360,
            f"{md.architecture}.context_length": md.context_length,
            f"{md.architecture}.embedding_length": 4096,
        }
        return await self._json(
            writer,
            200,
            {
                "modelfile": f"FROM {md.name}\n",
                "parameters": "temperature 0.6\ntop_k 20\ntop_p 0.95",
                "template": "{{ .Prompt }}",
                "details": self._details(md),
                "model_info": info,
                "capabilities": md.capabilities,
                "modified_at": "2026-01-01T00:00:00Z",
            },
        )

    async def _embed(self, req: RecordedRequest, writer: asyncio.StreamWriter) -> bool:
        body = req.json or {}
        model = body.get("model", "")
        if req.path == "/api/embeddings":
            return await self._json(
                writer, 200, {"embedding": fake_embedding(str(body.get("prompt", "")), self.embedding_dim)}
            )
        inp = body.get("input")
        items = [inp] if isinstance(inp, str) else inp
        if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
            if req.path == "/api/embed":
                return await self._json(writer, 400, {"error": "invalid input type"})
            return await self._json(
                writer,
                400,
                {
                    "error": {
                        "message": "invalid input type",
                        "type": "invalid_request_error",
                        "param": None,
                        "code": None,
                    }
                },
            )
        longest = max(map(len, items), default=0)
        if self.embedding_max_chars is not None and longest > self.embedding_max_chars:
            message = f"input ({longest // 4} tokens) is too large to process. increase the physical batch size"
            return await self._json(writer, 500, {"error": {"code": 500, "message": message, "type": "server_error"}})
        vecs = [self.embedding_fn(x) if self.embedding_fn else fake_embedding(x, self.embedding_dim) for x in items]
        if req.path == "/api/embed":
            return await self._json(
                writer,
                200,
                {
                    "model": model,
                    "embeddings": vecs,
                    "total_duration": 1000,
                    "load_duration": 10,
                    "prompt_eval_count": len(items),
                },
            )
        data = [{"object": "embedding", "embedding": v, "index": i} for i, v in enumerate(vecs)]
        return await self._json(
            writer,
            200,
            {
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"prompt_tokens": len(items), "total_tokens": len(items)},
            },
        )

    def _validate_ollama(self, body: dict[str, Any]) -> str | None:
        if not body.get("model"):
            return "model is required"
        tl = body.get("top_logprobs")
        if isinstance(tl, int) and not 0 <= tl <= 20:
            return "top_logprobs must be between 0 and 20"
        for msg in body.get("messages") or []:
            for call in msg.get("tool_calls") or []:
                if isinstance((call.get("function") or {}).get("arguments"), str):
                    return "Value looks like object, but can't find closing '}' symbol"
        return None

    async def _chat(
        self, req: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, openai: bool
    ) -> bool:
        body: dict[str, Any] = req.json if isinstance(req.json, dict) else {}
        model = str(body.get("model") or "")
        if not openai:
            problem = self._validate_ollama(body)
            if problem:
                return await self._json(writer, 400, {"error": problem})
            if body.get("messages") == []:
                reason = "unload" if body.get("keep_alive") in (0, "0") else "load"
                return await self._json(
                    writer,
                    200,
                    {
                        "model": model,
                        "created_at": _now(),
                        "message": {"role": "assistant", "content": ""},
                        "done": True,
                        "done_reason": reason,
                    },
                )
        reply = self._next_reply()
        if reply.usage.prompt_tokens is None:
            tools = 0 if reply.drops_tools or not body.get("tools") else int(len(_dumps(body["tools"])) / 3.5)
            reply = dataclasses.replace(reply, usage=dataclasses.replace(reply.usage, prompt_tokens=10 + tools))
        if reply.first_byte_delay:
            await self._sleep_watching(reader, reply.first_byte_delay)
        if reply.status != 200:
            body_bytes = reply.error_body if isinstance(reply.error_body, str) else _dumps(reply.error_body)
            ctype = "text/plain" if isinstance(reply.error_body, str) else "application/json; charset=utf-8"
            return await self._send(writer, reply.status, body_bytes.encode(), ctype, reply.headers)
        if reply.recorded is not None:
            # A stream recorded from a real server, replayed byte for byte, one event per write.
            events = [e + "\n\n" for e in reply.recorded.split("\n\n") if e.strip()]
            frames: list[_Frame] = [e.encode() for e in events]
            ctype = "text/event-stream" if openai else "application/x-ndjson"
            await self._stream(reader, writer, frames, reply, ctype, req.writes)
            return False
        stream = body.get("stream", True) if not openai else bool(body.get("stream", False))
        if not stream or reply.ignore_stream:
            full = render_openai_full(reply, model) if openai else render_ollama_full(reply, model)
            return await self._json(writer, 200, full)
        if openai:
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            frames = render_openai_events(reply, model, include_usage)
            ctype = "text/event-stream"
        else:
            frames = render_ollama_lines(reply, model)
            ctype = "application/x-ndjson"
        await self._stream(reader, writer, frames, reply, ctype, req.writes)
        return False

    async def _fim(self, req: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """One scripted reply's Text (and Delay) steps as the middle, in the framing of the path asked."""
        body: dict[str, Any] = req.json if isinstance(req.json, dict) else {}
        reply = self.fim_by_line.get(fim_line_prefix(req.path, body).strip()) or self._next_reply()
        if reply.first_byte_delay:
            await self._sleep_watching(reader, reply.first_byte_delay)
        if reply.status != 200:
            body_bytes = reply.error_body if isinstance(reply.error_body, str) else _dumps(reply.error_body)
            return await self._send(writer, reply.status, body_bytes.encode())
        model = str(body.get("model") or "")
        frames = render_fim_frames(reply, req.path, model)
        if not body.get("stream", req.path == "/api/generate"):
            text = "".join(s.text for s in reply.steps if isinstance(s, Text))
            full = {
                "/infill": {"content": text, "stop": True},
                "/api/generate": {"model": model, "created_at": _now(), "response": text, "done": True},
                "/v1/completions": {"object": "text_completion", "choices": [{"index": 0, "text": text}]},
            }[req.path]
            return await self._json(writer, 200, full)
        ctype = "application/x-ndjson" if req.path == "/api/generate" else "text/event-stream"
        await self._stream(reader, writer, frames, reply, ctype, req.writes)
        return False

    async def _sleep_watching(self, reader: asyncio.StreamReader, seconds: float) -> None:
        """Sleep, but notice a client that hangs up meanwhile."""
        try:
            data = await asyncio.wait_for(reader.read(1), seconds)
        except TimeoutError:
            return
        if not data:
            raise _ClientGone()

    async def _stream(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        frames: list[_Frame],
        reply: Reply,
        ctype: str,
        writes: list[tuple[float, int]] | None = None,
    ) -> None:
        # Connection: close keeps the hang-up detector from eating the first byte of a keep-alive follow-up request.
        head = f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n"
        head += f"Date: {time.strftime('%a, %d %b %Y %H:%M:%S GMT', time.gmtime())}\r\n\r\n"
        writer.write(head.encode())
        await writer.drain()
        gone = asyncio.ensure_future(reader.read(1))  # a pipelined client sends nothing until the response ends
        try:
            batch: list[bytes] = []
            per_write = reply.coalesce if reply.coalesce > 0 else len(frames) + 1
            sent = 0

            async def flush() -> None:
                nonlocal sent
                if batch:
                    await self._write_chunk(writer, b"".join(batch), reply.split_writes, gone)
                    sent += len(batch)
                    if writes is not None:
                        writes.append((time.perf_counter(), sent))
                    batch.clear()

            for frame in frames:
                if isinstance(frame, Delay):
                    await flush()
                    done, _ = await asyncio.wait({gone}, timeout=frame.seconds)
                    if done and not gone.result():
                        raise _ClientGone()
                    continue
                if isinstance(frame, Flood):
                    await flush()
                    await self._flood(writer, frame, gone)
                    continue
                batch.append(frame)
                if len(batch) >= per_write:
                    await flush()
            await flush()
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        finally:
            if not gone.done():
                gone.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await gone

    async def _flood(self, writer: asyncio.StreamWriter, flood: Flood, gone: asyncio.Future[bytes]) -> None:
        block = (flood.piece * max(1, 65536 // max(1, len(flood.piece)))).encode()
        written = 0
        while written < flood.size:
            await self._write_chunk(writer, block[: flood.size - written], False, gone)
            written += len(block)

    async def _write_chunk(
        self, writer: asyncio.StreamWriter, data: bytes, split: bool, gone: asyncio.Future[bytes]
    ) -> None:
        if gone.done() and not gone.result():
            raise _ClientGone()
        parts = [data[: len(data) // 2], data[len(data) // 2 :]] if split and len(data) > 1 else [data]
        for part in parts:
            writer.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
            await writer.drain()
            if split:
                await asyncio.sleep(0.002)  # give the halves separate reads on the client side


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    429: "Too Many Requests",
    499: "Client Closed Request",
    500: "Internal Server Error",
    501: "Not Implemented",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve a fake Ollama / OpenAI-compatible LLM.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help="JSON file: a list of replies (Reply.from_dict form)")
    parser.add_argument("--model", action="append", help="model name to list (repeatable)")
    parser.add_argument("--default", default="ok", help="text of the reply used when the script is exhausted")
    parser.add_argument("--fim-by-line", help='JSON file: {"text before the cursor on its line": reply} for FIM')
    parser.add_argument("--vision", action="store_true", help="the models report the vision capability")
    parser.add_argument("--embedding-model", action="append", help="an embedding-only model to list (repeatable)")
    parser.add_argument("--log-bodies", help="file: each chat request body appended as a JSON line")
    args = parser.parse_args(argv)
    fake = FakeLLMServer(port=args.port)
    if args.model:
        fake.models = [FakeModel(name=n) for n in args.model]
    fake.default_reply = Reply.text(args.default)
    if args.vision:
        fake.set_vision(True)
    for name in args.embedding_model or []:
        fake.models.append(FakeModel(name=name, capabilities=["embedding"], architecture="bert", parameter_size="137M"))
    if args.log_bodies:
        fake.body_log = Path(args.log_bodies)
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            fake.script(*(Reply.from_dict(d) for d in json.load(fh)))
    if args.fim_by_line:
        with open(args.fim_by_line, encoding="utf-8") as fh:
            fake.fim_by_line = {k: Reply.from_dict(v) for k, v in json.load(fh).items()}
    fake.start()
    print(f"READY {fake.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()


__all__ = [
    "Both",
    "Comment",
    "Delay",
    "FakeLLMServer",
    "FakeModel",
    "FakeToolCall",
    "FakeUsage",
    "Flood",
    "Raw",
    "RecordedRequest",
    "Reply",
    "StreamError",
    "Text",
    "Thinking",
    "ToolCalls",
    "bag_of_words_embedding",
    "fake_embedding",
    "fim_line_prefix",
    "render_fim_frames",
]

if __name__ == "__main__":
    sys.exit(main())
