"""llama.cpp's router mode: `llama-server --models-dir DIR` (no `-m`) serves every GGUF there from one endpoint, loads
a model when a request names it (evicting the least recently used past `--models-max`) and runs each in its own
process with its own window.

What it answers (llama.cpp tools/server, router mode):
- `GET /props` (no model): `{"role": "router", ...}` with no model's window (`n_ctx` 0).
- `GET /v1/models`: every model with `status.value` `loaded`, `loading` or `unloaded` (also `sleeping`, `failed`),
  `status.args` the command line it runs (or will run) with, `meta` only while it is loaded.
- `GET /props?model=NAME&autoload=false`: that model's own `/props` (its window, template, slots) while it is loaded;
  a 400 otherwise. Without `autoload=false` the request itself loads the model: listing the models for a picker must
  never do that, so it is always sent.

An unloaded model's window is read from its command line (`-c`/`--ctx-size` over `-np`/`--parallel`, the window of
one slot); once it loads, the capability check at the next start of a session reads the real one.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

from .base import ModelInfo
from .server_facts import apply_llamacpp_props

Probe = Callable[[str], Awaitable[dict[str, Any] | None]]
LOADED = "loaded"


def is_router(props: dict[str, Any] | None) -> bool:
    return isinstance(props, dict) and props.get("role") == "router"


def routed(info: ModelInfo | None) -> bool:
    """Whether the capability probe found this model behind a llama.cpp router."""
    facts = info.details.get("server_facts") if info is not None else None
    return isinstance(facts, dict) and facts.get("router") is True


def state_of(info: ModelInfo) -> str | None:
    """`loaded`, `loading`, `unloaded`... as the router lists it; None for any other server."""
    status = info.details.get("status")
    value = status.get("value") if isinstance(status, dict) else None
    return value if isinstance(value, str) else None


def window_from_args(args: Any) -> int | None:
    """The window of one slot from a llama-server command line, when it says (`-c 0` = the model's: unknown)."""
    if not isinstance(args, list):
        return None
    values: dict[str, int] = {}
    for flag, value in itertools.pairwise(args):
        key = {"-c": "ctx", "--ctx-size": "ctx", "-np": "parallel", "--parallel": "parallel"}.get(str(flag))
        if key is not None and str(value).isdigit():
            values[key] = int(value)
    ctx = values.get("ctx", 0)
    return ctx // max(1, values.get("parallel", 1)) or None


async def routed_info(probe: Probe, root: str, info: ModelInfo) -> ModelInfo:
    """`info` (as listed) with the model's own `/props` when it is loaded, else its window from its command line."""
    props = await probe(f"{root}/props?model={quote(info.name, safe='')}&autoload=false")
    if props is not None and not is_router(props):
        apply_llamacpp_props(info, props)
    else:
        status = info.details.get("status")
        window = window_from_args(status.get("args") if isinstance(status, dict) else None)
        if window:
            info.context_length = window
        info.details["server_facts"] = {"server": "llama.cpp", **({"n_ctx": window} if window else {})}
    facts = info.details["server_facts"]
    facts["router"] = True
    facts["state"] = state_of(info)
    return info
