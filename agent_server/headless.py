"""The headless face: `agent-server chat --output-format json|stream-json`, for scripts, CI jobs and benchmarks.

The same core as the editors, rendered as JSON instead of text. `stream-json` prints one JSON object per line as the
turn runs; `json` prints one object when it ends. Session updates keep their ACP shapes (`update` is exactly what an
ACP client would receive in `session/update`), so a consumer that reads ACP reads this; the few events ACP has no
shape for (the start, an approval and its answer, the result) are ours. The schema is versioned and shipped beside
this module (`headless_stream_v1.schema.json`, documented in docs/headless.md); a change that breaks a consumer
bumps `SCHEMA`.

Nobody is there to answer an approval: what the policy (config rules, `--allow`, `--deny`) does not allow is
refused (or allowed with `--approve all`), the request and its answer are both in the stream, and a refusal for want
of a person makes the exit code `APPROVAL_NEEDED`, so a script knows a person's decision was missing.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from . import acp
from .client_contract import ClientFeatures, FileChange

SCHEMA = "agent-server.headless/1"
OutputFormat = Literal["text", "json", "stream-json"]
Approve = Literal["ask", "all", "none"]

# Exit codes: what a script can branch on without reading the stream.
EXIT_DONE = 0  # the turn ended normally (end_turn)
EXIT_ERROR = 1  # anything else went wrong (the error event says what)
EXIT_USAGE = 2  # bad command line or configuration
EXIT_MODEL_UNREACHABLE = 3  # the LLM server could not be reached or failed
EXIT_MAX_ROUNDS = 4  # stopped by agent.max_rounds (max_turn_requests) or the answer's token limit (max_tokens)
EXIT_REFUSED = 5  # the model refused (stopReason refusal)
EXIT_APPROVAL_NEEDED = 6  # a tool call needed a person's approval and nobody gave it
EXIT_CANCELLED = 130  # interrupted (Ctrl-C, SIGINT) or the turn was cancelled

_STOP_EXIT = {
    "end_turn": EXIT_DONE,
    "max_turn_requests": EXIT_MAX_ROUNDS,
    "max_tokens": EXIT_MAX_ROUNDS,
    "refusal": EXIT_REFUSED,
    "cancelled": EXIT_CANCELLED,
}


def exit_code(stop_reason: str, approvals_missing: int) -> int:
    """The process's exit code for a turn that ended with `stop_reason`."""
    code = _STOP_EXIT.get(stop_reason, EXIT_ERROR)
    if code == EXIT_DONE and approvals_missing:
        return EXIT_APPROVAL_NEEDED
    return code


@dataclass
class Totals:
    """What the run cost, summed over every model call (the server's own counts where it reports them)."""

    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0

    def add(self, call: dict[str, Any]) -> None:
        self.model_calls += 1
        self.prompt_tokens += int(call.get("promptTokens") or 0)
        self.completion_tokens += int(call.get("completionTokens") or 0)
        self.cached_tokens += int(call.get("cachedTokens") or 0)

    def dump(self) -> dict[str, int]:
        return {
            "modelCalls": self.model_calls,
            "promptTokens": self.prompt_tokens,
            "completionTokens": self.completion_tokens,
            "cachedTokens": self.cached_tokens,
        }


@dataclass
class _Progress:
    client: JsonClient
    title: str

    @property
    def cancelled(self) -> bool:
        return False

    async def report(self, message: str, percentage: int | None = None) -> None:
        event: dict[str, Any] = {"type": "progress", "title": self.title, "message": message}
        if percentage is not None:
            event["percentage"] = percentage
        self.client.emit(event)

    async def end(self, message: str) -> None:
        self.client.emit({"type": "progress", "title": self.title, "message": message, "done": True})


@dataclass
class JsonClient:
    """An `AgentClient` that writes JSON events: each as a line (stream-json) or kept for one object at the end."""

    output_format: OutputFormat = "stream-json"
    approve: Approve = "none"
    out: TextIO = field(default_factory=lambda: sys.stdout)
    features: ClientFeatures = field(default_factory=ClientFeatures)
    session_id: str | None = None
    text: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    totals: Totals = field(default_factory=Totals)
    approvals_missing: int = 0
    _pending: list[dict[str, Any]] | None = field(default_factory=list)  # events before `start` (no session id yet)
    _started: float = field(default_factory=time.monotonic)

    def emit(self, event: dict[str, Any]) -> None:
        if self._pending is not None:
            self._pending.append(event)
            return
        self.events.append(event)
        if self.output_format == "stream-json":
            self.out.write(json.dumps(event, ensure_ascii=False) + "\n")
            self.out.flush()

    def start(self, session_id: str, cwd: Path, model: str | None, provider: str | None) -> None:
        """The first event: which session (resume it with `--session`), where, which model."""
        self.session_id = session_id
        pending, self._pending = self._pending or [], None
        self.emit(
            {"type": "start", "schema": SCHEMA, "sessionId": session_id, "cwd": str(cwd), "model": model,
             "provider": provider}
        )  # fmt: skip
        for event in pending:
            self.emit({**event, "sessionId": session_id} if "sessionId" in event else event)

    def finish(self, stop_reason: str | None, error: str | None = None, code: int | None = None) -> int:
        """The last event (stream-json) or the only object (json); returns the exit code it states."""
        if self._pending is not None:  # failed before a session existed
            pending, self._pending = self._pending, None
            self.events.extend(pending)
        if code is None:
            code = exit_code(stop_reason or "", self.approvals_missing) if error is None else EXIT_ERROR
        result: dict[str, Any] = {
            "type": "result",
            "schema": SCHEMA,
            "sessionId": self.session_id,
            "stopReason": stop_reason,
            "exitCode": code,
            "text": "".join(self.text),
            "usage": self.totals.dump(),
            "approvalsMissing": self.approvals_missing,
            "durationMs": round((time.monotonic() - self._started) * 1000),
        }
        if error is not None:
            result["error"] = error
        if self.output_format == "stream-json":
            self.emit(result)
        elif self.output_format == "json":
            result["events"] = self.events
            self.out.write(json.dumps(result, ensure_ascii=False) + "\n")
            self.out.flush()
        return code

    # --- AgentClient ------------------------------------------------------------------------------------------

    async def session_update(self, session_id: str, update: acp.SessionUpdate) -> None:
        wire = update.dump()
        if isinstance(update, acp.AgentMessageChunk) and isinstance(update.content, acp.TextContent):
            self.text.append(update.content.text)
        elif isinstance(update, acp.UsageUpdate):
            call = ((update.meta or {}).get("agentServer") or {}).get("call")
            if isinstance(call, dict):
                self.totals.add(call)
        self.emit({"type": "session_update", "sessionId": session_id, "update": wire})

    async def request_permission(
        self, session_id: str, tool_call: acp.ToolCallUpdateFields, options: list[acp.PermissionOption]
    ) -> acp.RequestPermissionResponse:
        # No person: allow only when told to (--approve all); otherwise refuse, and say a decision was missing.
        option_id = "allow_once" if self.approve == "all" else "reject_once"
        if option_id == "reject_once":
            self.approvals_missing += 1
        self.emit(
            {
                "type": "permission",
                "sessionId": session_id,
                "toolCall": tool_call.dump(),
                "options": [o.dump() for o in options],
                "outcome": {"outcome": "selected", "optionId": option_id},
                "answeredBy": f"--approve {self.approve}",
            }
        )
        return acp.RequestPermissionResponse(outcome=acp.SelectedOutcome(option_id=option_id))

    async def apply_edit(self, label: str, changes: list[FileChange]) -> bool:
        return False  # the core writes the files itself; the diff is in the tool call's update

    async def save_documents(self, paths: list[Path]) -> None:
        return None

    def open_document_text(self, path: Path) -> str | None:
        return None

    async def show_message_request(self, message: str, actions: list[str]) -> str | None:
        self.emit({"type": "question", "message": message, "actions": actions, "answer": None})
        return None  # nobody to answer: the same as dismissing it

    async def log(self, level: str, message: str) -> None:
        self.emit({"type": "log", "level": level, "message": message})

    async def begin_progress(self, title: str, cancellable: bool = True) -> _Progress:
        return _Progress(self, title)


def schema_path() -> Path:
    return Path(__file__).with_name("headless_stream_v1.schema.json")
