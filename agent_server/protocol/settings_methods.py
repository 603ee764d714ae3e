"""What the user decided and chose, over the editor protocol: remembered permission decisions and the model."""

from __future__ import annotations

from typing import Any

from . import params as method_params
from .server import AgentLanguageServer, rpc


def register(server: AgentLanguageServer) -> None:
    @rpc(server, "agent/_permissions/list")
    async def permissions_list(params: dict[str, Any]) -> dict[str, Any]:
        req = method_params.PermissionsListParams.model_validate(params)
        decisions = await server.require_agent().list_decisions(req.cwd)
        return {"decisions": decisions}

    @rpc(server, "agent/_permissions/revoke")
    async def permissions_revoke(params: dict[str, Any]) -> dict[str, Any]:
        req = method_params.PermissionsRevokeParams.model_validate(params)
        return {"revoked": await server.require_agent().revoke_decision(req.id)}

    @rpc(server, "agent/_models/list")
    async def models_list(params: dict[str, Any]) -> dict[str, Any]:
        method_params.NoParams.model_validate(params)
        return await server.require_agent().list_models()

    @rpc(server, "agent/_models/select")
    async def models_select(params: dict[str, Any]) -> dict[str, Any]:
        req = method_params.ModelSelectParams.model_validate(params)
        await method_params.refuse_unknown_model(server.require_agent(), req.model)
        return {"current": await server.require_agent().select_model(req.model)}
