"""Custom slash commands and MCP resources on the LSP face.

`agent/_resources/list` gives the session's MCP resources and templates for the editors' `@server:uri` completion;
`agent/_commands/list` its prompt files and MCP prompts (name, description, argument hint, source) for their `/`
completion. Running a command is an ordinary `agent/session/prompt` whose text starts with `/name`, and a mention is
plain prompt text: the server expands and reads both."""

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


class ListResourcesParams(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", strict=True)
    session_id: str


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
        return {"commands": [c.advertised() for c in await session_commands(cwd, None, refuse=agent.refusal(cwd))]}

    @rpc(server, "agent/_resources/list")
    async def resources_list(params: dict[str, Any]) -> dict[str, Any]:
        req = ListResourcesParams.model_validate(params)
        return {"resources": await server.require_agent().list_resources(req.session_id)}
