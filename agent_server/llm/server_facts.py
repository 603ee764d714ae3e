"""What an OpenAI-compatible server says about the model it runs, beyond `/v1/models`.

`/v1/models` gives a training context (`meta.n_ctx_train`) that is usually far bigger than the window the server was
started with, and nothing about tools. The servers that know more say so elsewhere:

- llama.cpp `GET /props`: `default_generation_settings.n_ctx` (the per-slot window it really runs; older builds put
  `n_ctx` at the top level), `chat_template_caps.supports_tools` (whether the chat template can render tool
  definitions at all: when it cannot, native tools are silently dropped), `model_alias`, `modalities`, `total_slots`,
  `chat_template` (whether it reads reasoning back, whether it is Harmony). A router (`role: router`) answers for
  itself; each model's own `/props` is behind `?model=` (llm/router.py).
- LM Studio `GET /api/v0/models/{id}`: `loaded_context_length` (the window of the loaded instance),
  `max_context_length`, `capabilities` (`tool_use`), `type` (`llm`, `vlm`, `embeddings`), `state`.

These runtime facts win over guesses; only `llm.context_length` / `llm.tool_mode` in the config win over them.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from .base import ModelInfo


def _positive_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def is_llamacpp(info: ModelInfo | None) -> bool:
    """Whether the capability probe found llama.cpp's `/props` for this model (progress, slots, /apply-template)."""
    facts = info.details.get("server_facts") if info is not None else None
    return isinstance(facts, dict) and facts.get("server") == "llama.cpp"


def props_describe(props: dict[str, Any], model: str, listed: int) -> bool:
    """Whether llama.cpp's `/props` is about `model`: its alias or file name, or the only model the server lists."""
    if listed == 1:
        return True
    alias = props.get("model_alias")
    path = props.get("model_path")
    names = {alias} if isinstance(alias, str) else set()
    if isinstance(path, str) and path:
        names |= {PurePath(path).name, PurePath(path).stem}
    return model in names


def apply_llamacpp_props(info: ModelInfo, props: dict[str, Any]) -> ModelInfo:
    """`info` updated in place with the window, tool support and modalities llama.cpp reports."""
    settings = props.get("default_generation_settings")
    n_ctx = _positive_int(settings.get("n_ctx")) if isinstance(settings, dict) else None
    n_ctx = n_ctx or _positive_int(props.get("n_ctx"))
    if n_ctx:
        info.context_length = n_ctx
    caps = props.get("chat_template_caps")
    if isinstance(caps, dict) and isinstance(caps.get("supports_tools"), bool):
        info.supports_tools = caps["supports_tools"]
    modalities = props.get("modalities")
    if isinstance(modalities, dict) and isinstance(modalities.get("vision"), bool):
        info.supports_vision = modalities["vision"]
    server: dict[str, Any] = {"server": "llama.cpp"}
    if isinstance(modalities, dict):  # kept so a restart with or without --mmproj replaces the cached entry
        server["modalities"] = {k: v for k, v in modalities.items() if isinstance(v, bool)}
    for key in ("model_alias", "total_slots", "build_info"):
        if key in props and isinstance(props[key], str | int):
            server[key] = props[key]
    if isinstance(caps, dict):
        server["chat_template_caps"] = {k: v for k, v in caps.items() if isinstance(v, bool)}
    if n_ctx:
        server["n_ctx"] = n_ctx
    template = props.get("chat_template")
    if isinstance(template, str):
        # What the model's own template does with reasoning: reads it back (Qwen3, gpt-oss as `thinking`), and
        # whether it is Harmony (gpt-oss): llm/model_shapes.py acts on both.
        server["template_reads_reasoning"] = "reasoning_content" in template or "message.thinking" in template
        server["harmony"] = "<|channel|>" in template
    info.details["server_facts"] = server
    return info


def apply_lmstudio_model(info: ModelInfo, entry: dict[str, Any]) -> ModelInfo:
    """`info` updated in place from LM Studio's `/api/v0/models/{id}` entry."""
    loaded = _positive_int(entry.get("loaded_context_length"))
    biggest = _positive_int(entry.get("max_context_length"))
    if loaded or biggest:
        info.context_length = loaded or biggest
    caps = entry.get("capabilities")
    if isinstance(caps, list):
        info.supports_tools = "tool_use" in caps
    kind = entry.get("type")
    if isinstance(kind, str):
        info.supports_vision = kind == "vlm"
        info.supports_embeddings = kind == "embeddings"
    if isinstance(caps, list) and "vision" in caps:  # newer LM Studio builds list it beside tool_use
        info.supports_vision = True
    server: dict[str, Any] = {"server": "lmstudio"}
    for key in ("state", "loaded_context_length", "max_context_length", "capabilities", "type", "arch"):
        if key in entry:
            server[key] = entry[key]
    info.details["server_facts"] = server
    return info
