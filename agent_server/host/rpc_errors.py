"""The one table from our exceptions to JSON-RPC errors, for every face that speaks JSON-RPC.

Plain data: the editor face wraps an answer in pygls's exception (`protocol/errors.py`), the ACP face in its own
`RpcFailure`, so neither face loads the other's vocabulary to report an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

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


@dataclass(frozen=True)
class ErrorAnswer:
    """A JSON-RPC error object's fields."""

    code: int
    message: str
    data: Any = None


def error_answer(exc: BaseException, method: str) -> ErrorAnswer:
    """What a request of `method` that raised `exc` answers."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "params"
        return ErrorAnswer(INVALID_PARAMS, f"Invalid params for {method}: {where}: {first['msg']}")
    if isinstance(exc, SessionNotFoundError):
        return ErrorAnswer(RESOURCE_NOT_FOUND, str(exc), {"sessionId": exc.session_id})
    if isinstance(exc, InvalidParamsError):
        return ErrorAnswer(INVALID_PARAMS, f"Invalid params for {method}: {exc}")
    if isinstance(exc, StateError):
        return ErrorAnswer(REQUEST_FAILED, str(exc))
    if isinstance(exc, ConfigError):
        return ErrorAnswer(INVALID_PARAMS, str(exc), {"key": exc.key})
    if isinstance(exc, LLMConnectionError):
        # With no server found, `embedded` lets the editor offer the built-in model in one action.
        offer = getattr(exc, "embedded", None)
        data = {"url": exc.url, "embedded": offer} if isinstance(offer, dict) else {"url": exc.url}
        return ErrorAnswer(LLM_UNAVAILABLE, str(exc), data)
    if isinstance(exc, LLMError):
        return ErrorAnswer(LLM_UNAVAILABLE, str(exc))
    if isinstance(exc, AgentServerError):
        return ErrorAnswer(INTERNAL_ERROR, str(exc))
    return ErrorAnswer(INTERNAL_ERROR, f"internal error in {method}: {type(exc).__name__}: {exc}")
