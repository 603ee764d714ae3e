"""A provider that answers from a script, in process: the loop, its guards and its edit formats run for real against
it, with no HTTP server and no subprocess (as mini-swe-agent's deterministic model or pydantic-ai's FunctionModel).

Each scripted step answers one model call: a string (the answer's text), a `ToolCall` or a list of them, a
`Scripted` (text, thinking, calls, finish reason and usage together), or a function of the request that returns any
of those (to answer from what the request holds). Every request is kept in `requests`, so a test reads what the
model was sent. A call past the end of the script is an error that names the request, never a silent empty answer.
Use it through `AgentService.endpoint.use(ScriptedProvider(...))`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from ..errors import LLMError
from ..messages import Finish, FinishReason, StreamEvent, TextDelta, ThinkingDelta, ToolCall, ToolCallEvent, Usage
from .base import ChatRequest, ModelInfo


@dataclass
class Scripted:
    """One whole answer: what it says, what it thinks, the calls it makes, how it ends."""

    text: str = ""
    thinking: str = ""
    calls: list[ToolCall] = field(default_factory=list)
    finish: FinishReason | None = None  # None: "tool_calls" when there are calls, else "stop"
    usage: Usage | None = None  # None: an estimate (4 characters a token), as a server would count
    pieces: int = 1  # the text streamed in this many deltas (guards that read the stream see them one by one)


Answer = str | ToolCall | list[ToolCall] | Scripted
Step = Answer | Callable[[ChatRequest], Answer]


def _as_scripted(answer: Answer) -> Scripted:
    if isinstance(answer, Scripted):
        return answer
    if isinstance(answer, str):
        return Scripted(text=answer)
    if isinstance(answer, ToolCall):
        return Scripted(calls=[answer])
    return Scripted(calls=list(answer))


def call(name: str, id: str | None = None, **arguments: object) -> ToolCall:
    """A tool call for a script: `call("read_file", path="a.py")`."""
    return ToolCall(id=id or f"call_{name}", name=name, arguments=dict(arguments))


class ScriptedProvider:
    """The `Provider` protocol over a list of scripted answers (see the module's docstring)."""

    name = "scripted"
    base_url = "scripted://local"

    def __init__(self, *steps: Step, model: str = "scripted", context_length: int = 8192, tools: bool = True) -> None:
        self.steps: list[Step] = list(steps)
        self.requests: list[ChatRequest] = []
        self.info = ModelInfo(name=model, context_length=context_length, supports_tools=tools)

    def script(self, *steps: Step) -> None:
        """More answers, after the ones still pending."""
        self.steps.extend(steps)

    @property
    def pending(self) -> int:
        return len(self.steps)

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        if not self.steps:
            last = request.messages[-1].content[:200] if request.messages else ""
            raise LLMError(f"the script has no answer for model call {len(self.requests)} (last message: {last!r})")
        step = self.steps.pop(0)
        answer = _as_scripted(step(request) if callable(step) else step)
        if answer.thinking:
            yield ThinkingDelta(answer.thinking)
        size = max(1, -(-len(answer.text) // max(1, answer.pieces)))
        for start in range(0, len(answer.text), size):
            yield TextDelta(answer.text[start : start + size])
        for tool_call in answer.calls:
            yield ToolCallEvent(tool_call)
        finish = answer.finish or ("tool_calls" if answer.calls else "stop")
        yield Finish(finish, answer.usage or self._usage(request, answer))

    @staticmethod
    def _usage(request: ChatRequest, answer: Scripted) -> Usage:
        sent = sum(len(m.content) + len(m.thinking) for m in request.messages)
        # The tool definitions count too, as a chat template renders them (else the dropped-tools guard fires).
        sent += sum(len(t.name) + len(t.description) + len(json.dumps(t.parameters)) for t in request.tools)
        return Usage(prompt_tokens=max(1, sent // 4), completion_tokens=max(1, len(answer.text) // 4))

    async def list_models(self) -> list[ModelInfo]:
        return [self.info]

    async def model_info(self, model: str) -> ModelInfo:
        return self.info

    async def embed(self, model: str, inputs: list[str]) -> list[list[float]]:
        raise LLMError("the scripted provider has no embeddings")

    async def aclose(self) -> None:
        return None
