"""The one table from our exceptions to JSON-RPC errors (`host/rpc_errors.py`), as pygls's exceptions."""

from __future__ import annotations

from pygls.exceptions import JsonRpcException

from ..host.rpc_errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    LLM_UNAVAILABLE,
    REQUEST_FAILED,
    RESOURCE_NOT_FOUND,
    error_answer,
)

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "LLM_UNAVAILABLE",
    "REQUEST_FAILED",
    "RESOURCE_NOT_FOUND",
    "RpcError",
    "to_rpc_error",
]


class RpcError(JsonRpcException):
    pass


def to_rpc_error(exc: BaseException, method: str) -> JsonRpcException:
    if isinstance(exc, JsonRpcException):
        return exc
    answer = error_answer(exc, method)
    return RpcError(code=answer.code, message=answer.message, data=answer.data)
