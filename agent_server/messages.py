"""Normalized message and stream-event types shared by every layer.

These are plain values: providers translate their wire formats into them, the loop accumulates them,
the store persists them and the protocol layer renders them. Ids and persistence are the store's concern.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]

# Who wrote a user-role message when the user did not: a guard's nudge, the output of a failed `agent.verify_command`,
# the failing test's traced path (`turn/failure_path.py`), or the `files` edit format's reply carrying what an
# answer's calls did (built for the prompt only, never stored).
NudgeKind = Literal["guard", "verify", "trace", "results"]

# Why an answer stopped before it was complete: the user cancelled the turn, or the server failed mid-answer.
Interruption = Literal["cancelled", "error"]


@dataclass
class ToolCall:
    """One call the model asked for. `arguments` is always a dict once parsed."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    # Set when the model's arguments were not valid JSON: the loop turns it into an error result.
    arguments_error: str | None = None


@dataclass(frozen=True)
class Image:
    """A picture the user attached: checked (mime type by its magic bytes, size) before it gets here."""

    mime_type: str  # image/png, image/jpeg, image/gif, image/webp
    data: str  # base64, as the wire formats send it
    name: str = ""  # where it came from (a file name), for the notes that stand in for it

    @property
    def size(self) -> int:
        """Decoded bytes (from the base64 length)."""
        return len(self.data) * 3 // 4 - self.data[-2:].count("=")


@dataclass(frozen=True)
class Rejection:
    """Why a call did not run although nothing failed: the user said no, or a policy rule (or a hook) did."""

    by: Literal["user", "policy"]
    reason: str

    def meta(self) -> dict[str, Any]:
        # ACP has no "rejected" status; editors read this `_meta` to show the call as rejected instead of failed.
        return {"rejected": {"by": self.by, "reason": self.reason}}


@dataclass(frozen=True)
class Repetition:
    """Where the repetition guard cut a looping answer: the repeated span, how often it came, in the text or the
    thinking."""

    span: str
    repeats: int
    within: str  # "text" | "thinking"


@dataclass(frozen=True)
class FileDiff:
    """A change a tool made to a file, kept with its result so a replayed session shows the edit itself."""

    path: str
    new_text: str
    old_text: str | None = None  # None: the file was created


@dataclass
class Message:
    """One message of a conversation. Besides what the model is sent (role, content, calls), the typed fields say what
    the turn, the context and the replay need to know about it; each belongs to one role (the comments say which), and
    a field of another role keeps its default. They are explicit fields rather than a nested record: a message is
    edited in place while its answer is read, and rewritten with `dataclasses.replace` by the context, both one field
    at a time. The store keeps them in the `marks` column (store/serialization.py)."""

    role: Role
    content: str = ""
    thinking: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None  # role == "tool": the call this answers
    tool_name: str | None = None  # role == "tool": the tool that ran (Ollama wants it)
    # Open data no decision of the core reads (what a caller wants kept with the message); never sent to the model.
    meta: dict[str, Any] = field(default_factory=dict)
    # role == "user": pictures sent with the text to a vision model (context/images.py decides which are sent).
    images: list[Image] = field(default_factory=list)
    # role == "user": not the user's own words (see NudgeKind); None: the user typed it.
    nudge: NudgeKind | None = None
    # role == "user": what the user typed, when the model was sent more (the hot context, the files of the `files`
    # edit format): the title and the replay show this.
    display: str | None = None
    # role == "assistant": its calls were read from its text (the model wrote them instead of emitting them).
    recovered_tool_calls: bool = False
    # role == "assistant": how many more calls it held than `agent.max_text_calls` lets run (not run).
    calls_not_run: int = 0
    # role == "assistant": kept as far as it streamed, without its calls (cancelled, or the server failed).
    interrupted: Interruption | None = None
    # role == "assistant": cut by the repetition guard.
    repetition: Repetition | None = None
    # role == "tool": the call failed (the tool's own `ToolResult.is_error`, kept through the store and the replay).
    is_error: bool = False
    # role == "tool": the call did not run because the user or a policy said no.
    rejected: Rejection | None = None
    # role == "tool": the changes the call made, for the replay (bounded by turn/tool_step.py).
    diffs: list[FileDiff] = field(default_factory=list)
    # role == "tool": what index.on_read made of this read_file result (index/on_read.py), once.
    on_read: str | None = None
    # role == "system": the session's summary (context/notes.py), with its notes for the next merge.
    summary: bool = False
    notes: dict[str, list[str]] | None = None
    # Shortened for the window by context/ (pruning.py, shrink.py, compaction.py): never shortened twice the same way.
    pruned: bool = False
    shrunk: bool = False
    compacted: bool = False

    @property
    def typed_by_user(self) -> bool:
        """The user's own message: a user-role message that is not a nudge, a verify result or the calls' results."""
        return self.role == "user" and self.nudge is None

    @property
    def as_typed(self) -> str:
        """A user message's text as the user typed it (`display`), else as it was sent."""
        return self.content if self.display is None else self.display


@dataclass
class Usage:
    """Token counts and timings as the server reported them; a missing metric is 0."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    total_duration_ms: float = 0.0
    load_duration_ms: float = 0.0
    prompt_eval_duration_ms: float = 0.0
    eval_duration_ms: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


# Normalized finish reasons of one model call.
FinishReason = Literal["stop", "length", "tool_calls", "error", "cancelled"]


@dataclass
class TextDelta:
    text: str
    type: Literal["text"] = "text"


@dataclass
class ThinkingDelta:
    text: str
    type: Literal["thinking"] = "thinking"


@dataclass
class ToolCallEvent:
    """A complete tool call (providers assemble fragments before emitting)."""

    call: ToolCall
    type: Literal["tool_call"] = "tool_call"


@dataclass
class Finish:
    """Always the last event of a successful stream."""

    reason: FinishReason
    usage: Usage = field(default_factory=Usage)
    type: Literal["finish"] = "finish"


@dataclass
class PromptProgress:
    """The server is still reading the prompt (llama.cpp `return_progress`): `processed` of `total` tokens, of which
    `cache` came from its KV cache without evaluation. Sent only when GenerationOptions.progress asks for it."""

    total: int
    cache: int
    processed: int
    type: Literal["progress"] = "progress"

    @property
    def fraction(self) -> float:
        """Share of the tokens to evaluate (those not cached) that are done."""
        todo = self.total - self.cache
        return 1.0 if todo <= 0 else min(1.0, max(0.0, (self.processed - self.cache) / todo))


@dataclass
class Notice:
    """Something the user should see while waiting, not part of the answer: a rate limit waited out, a model the
    server is loading. Shown as a status line in the thought stream; retries and fallbacks treat it as no answer."""

    text: str
    type: Literal["notice"] = "notice"


StreamEvent = TextDelta | ThinkingDelta | ToolCallEvent | PromptProgress | Notice | Finish
