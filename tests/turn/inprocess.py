"""The loop in process: a real AgentService (real store, tools, sandbox, policy, guards) answered by a
ScriptedProvider, and a client that records what a face would show. No HTTP server, no subprocess."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from agent_server import acp
from agent_server.client_contract import ClientFeatures, FileChange
from agent_server.config import Settings
from agent_server.config_layers import load_layers
from agent_server.llm.scripted import ScriptedProvider
from agent_server.session.service import AgentService


class RecordingClient:
    """Records every update; answers permission requests with `answer` (an option id) and keeps them."""

    def __init__(self, answer: str = "allow_once") -> None:
        self.features = ClientFeatures()
        self.answer = answer
        self.updates: list[acp.SessionUpdate] = []
        self.asked: list[acp.ToolCallUpdateFields] = []

    async def session_update(self, session_id: str, update: acp.SessionUpdate) -> None:
        self.updates.append(update)

    async def request_permission(
        self, session_id: str, tool_call: acp.ToolCallUpdateFields, options: list[acp.PermissionOption]
    ) -> acp.RequestPermissionResponse:
        self.asked.append(tool_call)
        return acp.RequestPermissionResponse(outcome=acp.SelectedOutcome(option_id=self.answer))

    async def apply_edit(self, label: str, changes: list[FileChange]) -> bool:
        return False

    async def save_documents(self, paths: list[Path]) -> None:
        return None

    def open_document_text(self, path: Path) -> str | None:
        return None

    async def show_message_request(self, message: str, actions: list[str]) -> str | None:
        return None

    async def log(self, level: str, message: str) -> None:
        return None

    async def begin_progress(self, title: str, cancellable: bool = True) -> Any:
        return _Quiet()

    def text(self) -> str:
        return "".join(
            u.content.text
            for u in self.updates
            if isinstance(u, acp.AgentMessageChunk) and isinstance(u.content, acp.TextContent)
        )

    def tool_results(self) -> list[str]:
        out = []
        for u in self.updates:
            if isinstance(u, acp.ToolCallProgress) and u.status in ("completed", "failed"):
                for item in u.content or []:
                    if isinstance(item, acp.Content) and isinstance(item.content, acp.TextContent):
                        out.append(item.content.text)
        return out


class _Quiet:
    cancelled = False

    async def report(self, message: str, percentage: int | None = None) -> None:
        return None

    async def end(self, message: str) -> None:
        return None


@asynccontextmanager
async def scripted_service(
    workspace: Path,
    provider: ScriptedProvider,
    client: RecordingClient,
    adjust: Callable[[Settings], Settings] | None = None,
    **sections: dict[str, Any],
) -> AsyncIterator[AgentService]:
    """An AgentService for `workspace` whose every model call `provider` answers; `sections` are settings, and
    `adjust` changes them past validation (a value the config does not know yet, such as a test's edit format)."""
    overrides = {"store": {"path": str(workspace.parent / "agent.db")}, "index": {"enabled": False}, **sections}
    loaded = load_layers(workspace, cli_overrides=overrides, environ={}, user_file=workspace.parent / "none.toml")
    settings = adjust(loaded.settings) if adjust is not None else loaded.settings
    service = AgentService(settings, [workspace], client)
    service.endpoint.use(provider, provider.info.name, provider.info)
    try:
        yield service
    finally:
        await service.aclose()


async def run(service: AgentService, client: RecordingClient, workspace: Path, text: str) -> str:
    session = await service.new_session(str(workspace))
    return await service.prompt(session.id, [acp.TextContent(text=text)], client)


def python_package(tmp_path: Path, name: str, code: str, tests: str) -> Path:
    """A workspace `ws` in `tmp_path`: the package `pkg` with the module `name` holding `code`, and `tests/test_<name>.py`
    holding `tests`."""
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "tests").mkdir()
    (ws / "pkg" / "__init__.py").write_text("")
    (ws / "pkg" / f"{name}.py").write_text(code)
    (ws / "tests" / f"test_{name}.py").write_text(tests)
    return ws
