"""The one table from our exceptions to JSON-RPC errors."""

from __future__ import annotations

from pydantic import ValidationError
from pygls.exceptions import JsonRpcException

from ..errors import (
    AgentServerError,
    ConfigError,
    InvalidParamsError,
    LLMConnectionError,
    LLMError,
    SessionNotFoundError,
    StateError,
)

INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002
REQUEST_FAILED = -32803  # LSP: valid params, but the server cannot do it now (e.g. indexing is off)
LLM_UNAVAILABLE = -32010  # ACP leaves -32000..-32099 to implementations


class RpcError(JsonRpcException):
    pass


def to_rpc_error(exc: BaseException, method: str) -> JsonRpcException:
    if isinstance(exc, JsonRpcException):
        return exc
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "params"
        return RpcError(code=INVALID_PARAMS, message=f"Invalid params for {method}: {where}: {first['msg']}")
    if isinstance(exc, SessionNotFoundError):
        return RpcError(code=RESOURCE_NOT_FOUND, message=str(exc), data={"sessionId": exc.session_id})
    if isinstance(exc, InvalidParamsError):
        return RpcError(code=INVALID_PARAMS, message=f"Invalid params for {method}: {exc}")
    if isinstance(exc, StateError):
        return RpcError(code=REQUEST_FAILED, message=str(exc))
    if isinstance(exc, ConfigError):
        return RpcError(code=INVALID_PARAMS, message=str(exc), data={"key": exc.key})
    if isinstance(exc, LLMConnectionError):
        # With no server found, `embedded` lets the editor offer the built-in model in one action.
        offer = getattr(exc, "embedded", None)
        data = {"url": exc.url, "embedded": offer} if isinstance(offer, dict) else {"url": exc.url}
        return RpcError(code=LLM_UNAVAILABLE, message=str(exc), data=data)
    if isinstance(exc, LLMError):
        return RpcError(code=LLM_UNAVAILABLE, message=str(exc))
    if isinstance(exc, AgentServerError):
        return RpcError(code=INTERNAL_ERROR, message=str(exc))
    return RpcError(code=INTERNAL_ERROR, message=f"internal error in {method}: {type(exc).__name__}: {exc}")
