"""`agent/_checkpoints/*`: list a session's checkpoints, show what a turn changed, restore (with a preview), undo
only one turn, undo the last restore."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from .errors import INVALID_PARAMS, RESOURCE_NOT_FOUND, RpcError

if TYPE_CHECKING:  # the checkpoint package loads with the agent, not before `initialize` is answered
    from ..checkpoints import CheckpointNotFoundError, CheckpointRecord, FileDiff, RestoreResult
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
    only_turn: bool = False
    """Reverse only that turn's own changes (a three-way undo: later changes stay, conflicts are reported)."""


class UndoRestoreParams(_Params):
    session_id: str | None = None
    cwd: str | None = None
    dry_run: bool = False


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
        "origin": record.origin,
    }


def diff_json(diff: FileDiff) -> dict[str, Any]:
    return {
        "path": diff.path,
        "status": diff.status,
        "oldText": diff.old_text,
        "newText": diff.new_text,
        "binary": diff.binary,
        "createdLater": diff.created_later,
    }


def restore_json(result: RestoreResult, restored: bool) -> dict[str, Any]:
    return {
        "files": [diff_json(d) for d in result.files],
        "conversationCut": result.conversation_cut,
        "restored": restored,
        "notes": result.notes,
        "conflicts": [{"path": c.path, "reason": c.reason} for c in result.conflicts],
        "undoCheckpointId": result.undo_checkpoint_id,
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
        if req.only_turn and req.conversation:
            raise RpcError(code=INVALID_PARAMS, message="onlyTurn keeps the conversation: not with conversation")
        try:
            if req.dry_run:
                return restore_json(await checkpoints().preview_restore(req.checkpoint_id, req.only_turn), False)
            agent = server.require_agent()
            result = await agent.restore_checkpoint(req.checkpoint_id, server.client, req.conversation, req.only_turn)
        except not_found_type() as exc:
            raise _not_found(exc) from exc
        return restore_json(result, True)

    @rpc(server, "agent/_checkpoints/undoRestore")
    async def checkpoints_undo_restore(params: dict[str, Any]) -> dict[str, Any]:
        """Undo the newest restore of a session (or workspace): reverse only that restore's own change, so files
        changed since stay. Undoing twice redoes the restore (the undo is a restore too)."""
        req = UndoRestoreParams.model_validate(params)
        guard = await checkpoints().last_restore(req.session_id, req.cwd)
        if req.dry_run:
            result = await checkpoints().preview_restore(guard.id, True)
            return {**restore_json(result, False), "checkpoint": checkpoint_json(guard)}
        result = await server.require_agent().restore_checkpoint(guard.id, server.client, False, True)
        return {**restore_json(result, True), "checkpoint": checkpoint_json(guard)}
