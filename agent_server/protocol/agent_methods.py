"""Modes and agent profiles on the LSP face: `agent/session/set_mode` (ACP's shape), `agent/_agents/list` and
`agent/_agents/create` (the editors' agent builder form)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from .. import acp
from .errors import INVALID_PARAMS, RpcError

if TYPE_CHECKING:
    from .server import AgentLanguageServer


class _Params(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", strict=True)


class SetModeParams(_Params):
    session_id: str
    mode_id: str


class ListAgentsParams(_Params):
    cwd: str | None = None


class CreateAgentParams(_Params):
    name: str
    description: str = ""
    tools: list[str] | None = None
    model: str | None = None
    prompt: str = ""
    scope: str = Field(default="workspace", pattern="^(workspace|user)$")
    cwd: str | None = None


def register(server: AgentLanguageServer) -> None:
    from .server import rpc

    def workspace(cwd: str | None) -> Path:
        roots = server.workspace_roots()
        return Path(cwd).resolve() if cwd else (roots[0] if roots else Path.cwd())

    @rpc(server, "agent/session/set_mode")
    async def session_set_mode(params: dict[str, Any]) -> dict[str, Any]:
        from ..agents import ProfileError

        req = SetModeParams.model_validate(params)
        agent = server.require_agent()
        try:
            state = await agent.set_mode(req.session_id, req.mode_id)
        except ProfileError as exc:
            raise RpcError(code=INVALID_PARAMS, message=str(exc)) from exc
        update = acp.CurrentModeUpdate(current_mode_id=state.current_mode_id)
        await server.client.session_update(req.session_id, update)
        # Allow rules the profile may not use until trusted: say so when the mode is picked, not only in a log.
        for notice in agent.modes.profile(await agent.open(req.session_id)).notices:
            await server.client.log("notice", notice)
        return {}

    @rpc(server, "agent/_agents/list")
    async def agents_list(params: dict[str, Any]) -> dict[str, Any]:
        from ..agents.builder import describe_catalog

        req = ListAgentsParams.model_validate(params)
        return describe_catalog(workspace(req.cwd), server.require_agent().store.path)

    @rpc(server, "agent/_agents/create")
    async def agents_create(params: dict[str, Any]) -> dict[str, Any]:
        from ..agents import ProfileError
        from ..agents.builder import create_profile

        req = CreateAgentParams.model_validate(params)
        try:
            path = create_profile(
                workspace(req.cwd) if req.scope == "workspace" else None,
                name=req.name,
                description=req.description,
                tools=req.tools,
                model=req.model,
                prompt=req.prompt,
            )
        except (ProfileError, FileExistsError) as exc:
            raise RpcError(code=INVALID_PARAMS, message=str(exc)) from exc
        return {"path": str(path), "name": req.name}
