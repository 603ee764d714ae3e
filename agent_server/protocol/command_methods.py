"""Custom slash commands on the LSP face: `agent/_commands/list` gives the editors the session's prompt files and
MCP prompts (name, description, argument hint, source) for their `/` completion; running one is an ordinary
`agent/session/prompt` whose text starts with `/name` (the server expands it)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from ..context_sources.session_commands import session_commands

if TYPE_CHECKING:
    from .server import AgentLanguageServer


class ListCommandsParams(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", strict=True)
    session_id: str | None = None
    cwd: str | None = None
    """Without a session (a chat not started yet): the prompt files of this folder, no MCP prompts."""


def register(server: AgentLanguageServer) -> None:
    from .server import rpc

    @rpc(server, "agent/_commands/list")
    async def commands_list(params: dict[str, Any]) -> dict[str, Any]:
        req = ListCommandsParams.model_validate(params)
        agent = server.require_agent()
        if req.session_id:
            return {"commands": await agent.list_commands(req.session_id)}
        roots = server.workspace_roots()
        cwd = Path(req.cwd).resolve() if req.cwd else (roots[0] if roots else Path.cwd())
        return {"commands": [c.advertised() for c in await session_commands(cwd, None)]}
