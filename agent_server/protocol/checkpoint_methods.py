"""`agent/_checkpoints/*`: list a session's checkpoints, show what a turn changed, restore (with a preview)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from .errors import RESOURCE_NOT_FOUND, RpcError

if TYPE_CHECKING:  # the checkpoint package loads with the agent, not before `initialize` is answered
    from ..checkpoints import CheckpointNotFoundError, CheckpointRecord, FileDiff
    from .server import AgentLanguageServer


class _Params(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", strict=True)


class ListParams(_Params):
    session_id: str | None = None
    cwd: str | None = None


class ShowParams(_Params):
    checkpoint_id: str = Field(min_length=1)


class RestoreParams(_Params):
    checkpoint_id: str = Field(min_length=1)
    conversation: bool = False
    """Also cut the conversation at the checkpoint's turn."""
    dry_run: bool = False
    """Only say what would change (the diff to review before restoring)."""


def checkpoint_json(record: CheckpointRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "sessionId": record.session_id,
        "cwd": record.workspace,
        "turnMessageId": record.turn_message_id,
        "prompt": record.prompt,
        "kind": record.kind,
        "createdAt": record.created_at,
        "complete": record.kind == "files" or record.after_ref is not None,
    }


def diff_json(diff: FileDiff) -> dict[str, Any]:
    return {
        "path": diff.path,
        "status": diff.status,
        "oldText": diff.old_text,
        "newText": diff.new_text,
        "binary": diff.binary,
    }


def _not_found(exc: CheckpointNotFoundError) -> RpcError:
    return RpcError(code=RESOURCE_NOT_FOUND, message=str(exc), data={"checkpointId": exc.checkpoint_id})


def register(server: AgentLanguageServer) -> None:
    from .server import rpc

    def not_found_type() -> type[CheckpointNotFoundError]:
        from ..checkpoints import CheckpointNotFoundError

        return CheckpointNotFoundError

    def checkpoints() -> Any:
        return server.require_agent().require_checkpoints()

    @rpc(server, "agent/_checkpoints/list")
    async def checkpoints_list(params: dict[str, Any]) -> dict[str, Any]:
        req = ListParams.model_validate(params)
        records = await checkpoints().list_checkpoints(req.session_id, req.cwd)
        return {"checkpoints": [checkpoint_json(r) for r in records]}

    @rpc(server, "agent/_checkpoints/show")
    async def checkpoints_show(params: dict[str, Any]) -> dict[str, Any]:
        req = ShowParams.model_validate(params)
        try:
            record = await checkpoints().get(req.checkpoint_id)
            changes = await checkpoints().changes(req.checkpoint_id)
        except not_found_type() as exc:
            raise _not_found(exc) from exc
        return {"checkpoint": checkpoint_json(record), "files": [diff_json(d) for d in changes]}

    @rpc(server, "agent/_checkpoints/restore")
    async def checkpoints_restore(params: dict[str, Any]) -> dict[str, Any]:
        req = RestoreParams.model_validate(params)
        try:
            if req.dry_run:
                files = await checkpoints().preview_restore(req.checkpoint_id)
                return {"files": [diff_json(d) for d in files], "conversationCut": False, "restored": False}
            result = await server.require_agent().restore_checkpoint(req.checkpoint_id, server.client, req.conversation)
        except not_found_type() as exc:
            raise _not_found(exc) from exc
        return {
            "files": [diff_json(d) for d in result.files],
            "conversationCut": result.conversation_cut,
            "restored": True,
            "notes": result.notes,
        }
