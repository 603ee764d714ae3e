"""llama.cpp's router mode (`llama-server --models-dir DIR`, no `-m`) as the fake LLM server answers it, built against
llama.cpp's documented router API (tools/server README, "Using multiple models"; the HF blog "New in llama.cpp: Model
Management"), for the tests the real router cannot run here (the prebuilt xllamacpp wheel disables router mode):

- `GET /props`: `{"role": "router", ...}` without a model; `GET /props?model=NAME&autoload=false`: the model's own
  props while it is loaded, 400 "model is not loaded" otherwise; without `autoload=false` it loads the model first.
- `GET /v1/models` and `GET /models`: every model with `status.value` (`loaded`, `loading`, `unloaded`) and
  `status.args` (its command line: `--ctx-size`, `--parallel`), `meta` only while loaded.
- `POST /models/load`: starts loading; a chat request naming an unloaded model loads it first (`load_s` seconds,
  `loading` meanwhile), evicting the least recently used past `max_loaded`.

    router = FakeRouter([RouterModel("small", n_ctx=8192, loaded=True), RouterModel("big", n_ctx=16384)]).start()
    router.loads  # the models loaded so far, in order
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from tests.fakes.fake_llm import FakeLLMServer, FakeModel, RecordedRequest


@dataclass
class RouterModel:
    name: str
    n_ctx: int = 8192  # the window of one slot
    parallel: int = 1
    loaded: bool = False
    load_s: float = 1.0
    state: str = field(init=False, default="unloaded")
    used: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        self.state = "loaded" if self.loaded else "unloaded"

    @property
    def path(self) -> str:
        return f"/models/{self.name}.gguf"

    def listed(self) -> dict[str, Any]:
        args = ["llama-server", "--alias", self.name, "--ctx-size", str(self.n_ctx * self.parallel),
                "--parallel", str(self.parallel), "--model", self.path]  # fmt: skip
        entry: dict[str, Any] = {"id": self.name, "object": "model", "owned_by": "llamacpp", "aliases": [],
                                 "status": {"value": self.state, "args": args}}  # fmt: skip
        if self.state == "loaded":
            entry["meta"] = {"n_ctx_train": 32768, "n_params": 494032768}
        return entry

    def props(self) -> dict[str, Any]:
        return {
            "default_generation_settings": {"n_ctx": self.n_ctx},
            "total_slots": self.parallel,
            "model_alias": self.name,
            "model_path": self.path,
            "chat_template_caps": {"supports_tools": True},
            "modalities": {"vision": False},
            "build_info": "fake-router",
        }


class FakeRouter(FakeLLMServer):
    def __init__(self, models: list[RouterModel], max_loaded: int = 4) -> None:
        super().__init__()
        self.router_models = {m.name: m for m in models}
        self.models = [FakeModel(m.name, context_length=m.n_ctx) for m in models]
        self.flavor = "openai"
        self.max_loaded = max_loaded
        self.loads: list[str] = []
        self._loading: set[asyncio.Task[None]] = set()
        self._loaded: dict[str, asyncio.Event] = {}

    async def _handle(self, req: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        query = {k: v[-1] for k, v in parse_qs(req.query).items()}
        if req.path == "/props" and req.method == "GET":
            return await self._props(query, writer)
        if req.path in ("/v1/models", "/models") and req.method == "GET":
            data = [m.listed() for m in self.router_models.values()]
            return await self._json(writer, 200, {"object": "list", "data": data})
        if req.path == "/models/load" and req.method == "POST":
            model = self.router_models.get(str((req.json or {}).get("model")))
            if model is None:
                return await self._error(writer, 404, "model is not found", "not_found_error")
            task = asyncio.ensure_future(self._load(model))
            self._loading.add(task)
            task.add_done_callback(self._loading.discard)
            return await self._json(writer, 200, {"success": True})
        if req.path == "/v1/chat/completions" and req.method == "POST":
            model = self.router_models.get(str((req.json or {}).get("model")))
            if model is None:
                return await self._error(writer, 400, "model not found", "invalid_request_error")
            await self._load(model)
            model.used = time.monotonic()
        return await super()._handle(req, reader, writer)

    async def _props(self, query: dict[str, str], writer: asyncio.StreamWriter) -> bool:
        name = query.get("model")
        if name is None:
            return await self._json(writer, 200, {"role": "router", "max_instances": self.max_loaded,
                                                  "models_autoload": True, "model_path": "none",
                                                  "default_generation_settings": {"n_ctx": 0}})  # fmt: skip
        model = self.router_models.get(name)
        if model is None:
            return await self._error(writer, 400, f"model '{name}' not found", "invalid_request_error")
        if model.state != "loaded":
            if query.get("autoload") == "false":
                return await self._error(writer, 400, "model is not loaded", "invalid_request_error")
            await self._load(model)
        return await self._json(writer, 200, model.props())

    async def _load(self, model: RouterModel) -> None:
        if model.state == "loaded":
            return
        if model.state == "unloaded":
            running = [m for m in self.router_models.values() if m.state != "unloaded"]
            if len(running) >= self.max_loaded:
                min(running, key=lambda m: m.used).state = "unloaded"
            model.state = "loading"
            self.loads.append(model.name)
            loaded = self._loaded[model.name] = asyncio.Event()
            await asyncio.sleep(model.load_s)
            model.state = "loaded"
            loaded.set()
            return
        await self._loaded[model.name].wait()  # another request is loading it

    async def _error(self, writer: asyncio.StreamWriter, status: int, message: str, kind: str) -> bool:
        return await self._json(writer, status, {"error": {"code": status, "message": message, "type": kind}})
