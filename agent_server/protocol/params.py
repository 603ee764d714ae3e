"""Params of our own `agent/_*` methods, validated at the edge: a wrong type anywhere answers -32602, never -32603.

Strict models, so `limit: NaN`, `"10"` or `true` are refused instead of coerced; unknown keys are ignored, as a
newer client may send more than this server reads.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from ..llm.model_names import find_listed
from ..tools.search_query import MAX_RAW_QUERY_CHARS
from .errors import INVALID_PARAMS, RpcError

if TYPE_CHECKING:
    from ..session.service import AgentService

_MODEL_LIST_WAIT_S = 10.0


class _Params(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", strict=True)


class NoParams(_Params):
    """A method that reads no params still refuses params that are not an object."""


class PermissionsListParams(_Params):
    cwd: str | None = Field(default=None, min_length=1)


class PermissionsRevokeParams(_Params):
    id: str = Field(min_length=1)


class ModelSelectParams(_Params):
    model: str = Field(min_length=1)


class IndexSearchParams(_Params):
    query: str = Field(max_length=MAX_RAW_QUERY_CHARS)  # longer than MAX_QUERY_CHARS: shortened (shorten_query)
    limit: int = Field(default=10, ge=1, le=200)
    path: str | None = None
    files: bool = False  # distinct files, each with its best chunks


async def refuse_unknown_model(agent: AgentService, model: str) -> None:
    """-32602 naming the model and the ones the server lists; a server we cannot ask lets the choice stand."""
    try:
        listed = await asyncio.wait_for(agent.list_models(), _MODEL_LIST_WAIT_S)
    except asyncio.CancelledError:
        raise
    except Exception:  # LLM server down or without a list: the next prompt reports it
        return
    names = [str(m["name"]) for m in listed.get("models") or []]
    if names and find_listed(model, names) is None:
        raise RpcError(
            code=INVALID_PARAMS,
            message=f"unknown model {model!r}; the server lists: {', '.join(names)}",
            data={"model": model, "available": names},
        )


class SearchSessionsParams(_Params):
    query: str = Field(min_length=1, max_length=200)
    cwd: str | None = Field(default=None, min_length=1)
    cursor: str | None = Field(default=None, pattern=r"^\d{1,9}$")
    """The `nextCursor` of the previous page."""
    limit: int = Field(default=50, ge=1, le=200)

    def offset(self) -> int:
        return int(self.cursor) if self.cursor else 0
