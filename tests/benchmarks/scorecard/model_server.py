"""The model server of a scorecard run: agent-server's own embedded llama.cpp runner (the built-in model's server) in a
child process, one thread under load, with /metrics on for the token counts: the real_llm lane's starter."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.real_llm.llama import LlamaServer, start_llama, stop_llama

ALIAS = "qwen2.5-coder-0.5b-instruct"


@dataclass
class ModelServer:
    llama: LlamaServer

    @property
    def url(self) -> str:
        return self.llama.url

    @property
    def api_key(self) -> str | None:
        """The key the server requires, if it was started with one (every system is then given it)."""
        key = getattr(self.llama, "api_key", None)
        return key if isinstance(key, str) and key else None

    def stop(self) -> None:
        stop_llama(self.llama)


def start_model_server(gguf: Path, window: int, alias: str = ALIAS, log: Path | None = None) -> ModelServer:
    log = log or Path(tempfile.mkdtemp(prefix="scorecard-llama-")) / "llama-server.log"
    return ModelServer(start_llama((None, gguf), log, window, "--metrics", alias=alias))
