"""What the core needs from whoever drives it (an editor over LSP, the terminal, a test).

The protocol layer implements this over JSON-RPC; `cli.py chat` implements it for the terminal.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from . import acp


@dataclass
class TextEdit:
    """Replace [start, end) with `new_text`: 0-based lines (split at \\n) and characters counted in code points (string
    indices). The protocol layer converts them to the editor's negotiated position encoding (protocol/positions.py)."""

    start_line: int
    start_character: int
    end_line: int
    end_character: int
    new_text: str


@dataclass
class FileChange:
    """One file's change: `create` makes a new file; otherwise `edits` apply to the current text, `base` (the text the
    edits' positions refer to; None: the open buffer or the file on disk)."""

    path: Path
    edits: list[TextEdit] = field(default_factory=list)
    create: bool = False
    base: str | None = None


class ClientFiles(Protocol):
    """A client that reads and writes files itself (its unsaved buffers, its undo history)."""

    can_read: bool
    can_write: bool

    async def read_text_file(self, session_id: str, path: Path) -> str:
        """The text the user sees in the client (the unsaved buffer if open)."""
        ...

    async def write_text_file(self, session_id: str, path: Path, text: str) -> None: ...


@dataclass
class CommandRun:
    """How a command run by the client ended."""

    output: str
    exit_code: int | None
    signal: str | None = None
    timed_out: bool = False
    truncated: bool = False


class ClientTerminal(Protocol):
    """A client that runs commands in its own terminal, where the user watches them."""

    async def run_command(
        self, session_id: str, command: str, cwd: Path, env: dict[str, str], timeout_s: float, output_limit: int
    ) -> CommandRun:
        """Run `command` (a shell line), stop it after `timeout_s`; the output keeps its last `output_limit` bytes."""
        ...


class ClientQuestions(Protocol):
    """A client that can put the model's question to the user and bring the answer back within the turn."""

    async def ask_user(
        self, session_id: str, question: str, options: list[str], tool_call_id: str | None
    ) -> str | None:
        """The user's answer; None when they declined or dismissed it (the question then ends the turn)."""


@dataclass(frozen=True)
class Diagnostic:
    """One problem the editor's language servers report in a file (0-based line/character, LSP style)."""

    line: int
    character: int
    message: str
    severity: int = 1  # LSP: 1 error, 2 warning, 3 information, 4 hint
    source: str | None = None  # "Pyright", "ruff", ...
    code: str | None = None


@dataclass
class DiagnosticsSnapshot:
    """A file's diagnostics at one moment; `generation` counts the editor's diagnostics changes for the file."""

    diagnostics: list[Diagnostic]
    generation: int = 0


class ClientDiagnostics(Protocol):
    """An editor that tells what its language servers report for a file (`agent/_diagnostics`)."""

    async def file_diagnostics(self, path: Path, after: int | None, timeout_s: float) -> DiagnosticsSnapshot:
        """The diagnostics of `path` now (after=None), or once they changed since generation `after` and settled
        (at most `timeout_s`; then as they are)."""
        ...


CodeRequest = Literal["definition", "references", "hover", "documentSymbol", "rename"]


@dataclass(frozen=True)
class CodeLocation:
    """A place a language server points to: a file and the 0-based first and last lines of the range."""

    path: Path
    line: int
    end_line: int


@dataclass(frozen=True)
class CodeSymbol:
    """One entry of a file's outline (0-based lines); `depth` counts the symbols it is nested in."""

    name: str
    kind: int  # LSP SymbolKind: 5 class, 6 method, 12 function, 13 variable, ...
    line: int
    end_line: int
    depth: int = 0
    detail: str = ""


TextOf = Callable[[Path], Awaitable[str | None]]
"""The text a file has for the core (the open buffer, else the disk; None: not one the core may read)."""


class ClientCode(Protocol):
    """An editor that answers code questions with its own language servers (`agent/_code`). `line_text` is the text
    of the asked line, so positions can be counted in the editor's units. None: no language server answers that
    request for the file."""

    serves: frozenset[CodeRequest]

    async def locations(
        self, request: Literal["definition", "references"], path: Path, line: int, character: int, line_text: str
    ) -> list[CodeLocation] | None: ...

    async def hover(self, path: Path, line: int, character: int, line_text: str) -> str | None: ...

    async def symbols(self, path: Path) -> list[CodeSymbol] | None: ...

    async def rename(
        self, path: Path, line: int, character: int, line_text: str, new_name: str, text_of: TextOf
    ) -> list[FileChange] | None:
        """The language server's workspace edit as one change per file, in the core's positions, each with the
        `base` text (from `text_of`) its edits apply to; nothing is applied."""
        ...


@dataclass
class ClientFeatures:
    apply_edit: bool = False  # workspace/applyEdit
    resource_operations: bool = False  # CreateFile in a WorkspaceEdit
    show_message_request: bool = False
    work_done_progress: bool = False
    files: ClientFiles | None = None  # reads see the client's buffers, writes go through the client
    terminal: ClientTerminal | None = None  # run_command runs in the client's terminal
    questions: ClientQuestions | None = None  # ask_question is answered within the turn
    diagnostics: ClientDiagnostics | None = None  # the editor reports its language servers' diagnostics
    code: ClientCode | None = None  # the editor answers definitions, references, hover, outlines and renames


class ProgressReporter(Protocol):
    async def report(self, message: str, percentage: int | None = None) -> None: ...

    async def end(self, message: str) -> None: ...

    @property
    def cancelled(self) -> bool: ...


class AgentClient(Protocol):
    features: ClientFeatures

    async def session_update(self, session_id: str, update: acp.SessionUpdate) -> None:
        """Send one `agent/session/update` notification."""
        ...

    async def request_permission(
        self, session_id: str, tool_call: acp.ToolCallUpdateFields, options: list[acp.PermissionOption]
    ) -> acp.RequestPermissionResponse:
        """Ask the user; a cancelled turn resolves as `CancelledOutcome`."""
        ...

    async def apply_edit(self, label: str, changes: list[FileChange]) -> bool:
        """Apply edits in the editor (undoable). False if the editor refused; only called if features.apply_edit."""
        ...

    async def save_documents(self, paths: list[Path]) -> None:
        """Make sure edited files are written to disk (after apply_edit)."""
        ...

    def open_document_text(self, path: Path) -> str | None:
        """The editor's unsaved text of `path` if it is open, else None."""
        ...

    async def show_message_request(self, message: str, actions: list[str]) -> str | None:
        """A simple choice; None if dismissed or unsupported."""
        ...

    async def log(self, level: str, message: str) -> None:
        """`error`, `warning`, `info` go to the editor's log; `notice` is also shown to the user, once."""
        ...

    async def begin_progress(self, title: str, cancellable: bool = True) -> ProgressReporter: ...
