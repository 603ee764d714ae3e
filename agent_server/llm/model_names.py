"""Model names as the LLM server understands them: `qwen3` and `qwen3:latest` are one model.

Ollama fills in defaults before it looks a name up (`registry.ollama.ai/library/qwen3:latest`) and compares names
case-insensitively, so a user's `llm.model = "qwen3"` is the `qwen3:latest` that `/api/tags` lists. Code that compares
a configured name with a listed one (doctor, the model picker, capability overrides) goes through this module, so
that a name the server would accept is never reported missing and one model never shows up twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

DEFAULT_HOST = "registry.ollama.ai"
DEFAULT_NAMESPACE = "library"
DEFAULT_TAG = "latest"


@dataclass(frozen=True)
class ModelName:
    """The parts of an Ollama model reference `[scheme://][host/][namespace/]model[:tag][@digest]`."""

    host: str
    namespace: str
    model: str
    tag: str

    @property
    def key(self) -> str:
        """Equal for every spelling Ollama treats as the same model (its comparison ignores case)."""
        return f"{self.host}/{self.namespace}/{self.model}:{self.tag}".casefold()

    @property
    def short(self) -> str:
        """The spelling `ollama list` shows: default host and namespace dropped, the tag kept."""
        prefix = ""
        if self.host.casefold() != DEFAULT_HOST:
            prefix = f"{self.host}/{self.namespace}/"
        elif self.namespace.casefold() != DEFAULT_NAMESPACE:
            prefix = f"{self.namespace}/"
        return f"{prefix}{self.model}:{self.tag}"


def parse(name: str) -> ModelName:
    """Split a name the way Ollama's ParseName does; missing parts get Ollama's defaults.

    The tag is what follows the last `:` only when that `:` comes after the last `/` (so a registry port, as in
    `localhost:5000/ns/model`, is not a tag). `hf.co/user/repo:Q4_K_M` is host `hf.co`, namespace `user`.
    """
    text = name.strip()
    text = text.split("@", 1)[0]  # a digest pins a version; it does not change which model is meant
    tag = ""
    if text.rfind(":") > text.rfind("/"):
        text, tag = text.rsplit(":", 1)
    parts = text.split("/")
    model = parts[-1]
    namespace = parts[-2] if len(parts) >= 2 else ""
    host = "/".join(parts[:-2]) if len(parts) >= 3 else ""
    if "://" in host:
        host = host.split("://", 1)[1]
    return ModelName(
        host=host or DEFAULT_HOST,
        namespace=namespace or DEFAULT_NAMESPACE,
        model=model,
        tag=tag or DEFAULT_TAG,
    )


def model_key(name: str) -> str:
    """A comparison key: two names with the same key are the same model to Ollama."""
    return parse(name).key


def same_model(a: str, b: str) -> bool:
    return a == b or model_key(a) == model_key(b)


def find_listed(name: str, listed: Iterable[str]) -> str | None:
    """The spelling of `name` among the names a server lists: the exact one first, then Ollama's equivalent.

    OpenAI-compatible servers (llama.cpp, LM Studio, vLLM) list free-form ids; an exact id wins there, and the
    Ollama rules only join names that differ in a default part or in case, which those servers do not tell apart
    either in practice.
    """
    names = list(listed)
    if name in names:
        return name
    key = model_key(name)
    matches = [n for n in names if model_key(n) == key]
    return matches[0] if matches else None


def unique_models(items: Iterable[T], name: Callable[[T], str]) -> list[T]:
    """`items` without a second spelling of a model already listed (the first one is kept, order kept)."""
    seen: set[str] = set()
    out: list[T] = []
    for item in items:
        key = model_key(name(item))
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out
