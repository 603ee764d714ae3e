"""A recording AgentClient that behaves like an editor: open buffers, applyEdit on them, save to disk."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agent_server import acp
from agent_server.client_contract import ClientFeatures, FileChange, ProgressReporter, TextEdit
from agent_server.tools.base import ToolContext


def _offset(text: str, line: int, character: int) -> int:
    """A TextEdit position (characters in code points) as a string index; positions past the end clamp to the end."""
    lines = text.split("\n")
    if line >= len(lines):
        return len(text)
    start = sum(len(x) + 1 for x in lines[:line])
    return start + min(character, len(lines[line]))


def apply_text_edits(text: str, edits: list[TextEdit]) -> str:
    spans = sorted(
        (
            (_offset(text, e.start_line, e.start_character), _offset(text, e.end_line, e.end_character), e.new_text)
            for e in edits
        ),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


@dataclass
class RecordingClient:
    features: ClientFeatures = field(default_factory=ClientFeatures)
    buffers: dict[Path, str] = field(default_factory=dict)
    edits: list[tuple[str, list[FileChange]]] = field(default_factory=list)
    saved: list[Path] = field(default_factory=list)
    refuse: bool = False

    def open(self, path: Path, text: str) -> None:
        self.buffers[path.resolve()] = text

    async def session_update(self, session_id: str, update: acp.SessionUpdate) -> None:
        pass

    async def request_permission(
        self, session_id: str, tool_call: acp.ToolCallUpdateFields, options: list[acp.PermissionOption]
    ) -> acp.RequestPermissionResponse:
        return acp.RequestPermissionResponse(outcome=acp.CancelledOutcome())

    async def apply_edit(self, label: str, changes: list[FileChange]) -> bool:
        self.edits.append((label, changes))
        if self.refuse:
            return False
        for change in changes:
            path = change.path.resolve()
            if change.create:
                assert self.features.resource_operations, "CreateFile sent to a client that cannot do it"
                assert not path.exists(), "CreateFile for an existing file"
                path.write_text("")
            if path not in self.buffers:
                assert path.exists(), f"edit to a missing file {path}"
                self.buffers[path] = path.read_bytes().decode()
            self.buffers[path] = apply_text_edits(self.buffers[path], change.edits)
        return True

    async def save_documents(self, paths: list[Path]) -> None:
        for path in paths:
            self.saved.append(path)
            text = self.buffers.get(path.resolve())
            if text is not None:
                path.write_bytes(text.encode())

    def open_document_text(self, path: Path) -> str | None:
        return self.buffers.get(path.resolve())

    async def show_message_request(self, message: str, actions: list[str]) -> str | None:
        return None

    async def log(self, level: str, message: str) -> None:
        pass

    async def begin_progress(self, title: str, cancellable: bool = True) -> ProgressReporter:
        raise NotImplementedError


@pytest.fixture
def client() -> RecordingClient:
    return RecordingClient()


@pytest.fixture
def ctx(workspace: Path, client: RecordingClient) -> ToolContext:
    return ToolContext(session_id="s1", roots=[workspace], client=client)
