"""Saved sessions resume warm: a session's llama.cpp KV cache goes to disk when the session goes idle (IDLE_SAVE_S
after its turn, or at once when another session is about to take the slot) or closes, and comes back when the
session sends its next request after the server's slot was used by something else (another session, a restarted
agent-server, a restarted server).

llama.cpp started with `--slot-save-path DIR` saves and restores a slot's KV cache (`POST /slots/0?action=save|
restore`, a file name inside DIR); restoring takes milliseconds where evaluating the same prompt again takes a second
per 40-200 tokens on a CPU. A restored cache is only useful if the prompt the session sends next starts with the
prompt the cache holds, so beside each slot file a small JSON record keeps the SHA-256 and length of the rendered
prompt that was saved (llama.cpp's own `/apply-template`, the exact text it tokenizes) and the model it ran. The
next request is rendered the same way and the slot is restored only when it starts with that text on the same model;
anything else (a compacted history, another model, a missing file, an error) falls back silently to normal
evaluation. llama.cpp also compares the restored tokens with the new prompt itself, so a wrong restore costs time,
never correctness.

Only where the slot is the session's own: a one-slot server (the embedded server runs one slot) that says so in
`/props` and in `/slots`. On several slots there is no telling which slot served a session's last request, and on a
server a team shares (`/slots` lists several, or a gateway hides it, or llama.cpp's router serves several models) a
restore would put one user's cache where another's work is: nothing is saved or restored there.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel, ValidationError

from ..config import LLMConfig
from ..messages import StreamEvent
from ._http import json_body, make_client
from .base import ChatRequest, ModelInfo, Provider
from .openai_compat import api_root, build_payload
from .router import routed
from .server_facts import is_llamacpp

log = logging.getLogger(__name__)
# A session idle this long is saved (a conversation going on needs no file; llama.cpp keeps the slot warm).
IDLE_SAVE_S = 10.0


class SlotRecord(BaseModel):
    """What a saved slot file holds, written beside it (validated when read back: the directory is shared)."""

    prompt_sha256: str
    prompt_chars: int
    n_saved: int
    model: str


def slot_file(session_id: str) -> str:
    """llama.cpp accepts plain file names only; a hash keeps session ids out of the server's directory."""
    return "agent-server-" + hashlib.sha256(session_id.encode()).hexdigest()[:24] + ".bin"


class SlotCache:
    """One llama.cpp server's saved session caches. `save_dir` is the server's --slot-save-path (agent-server prunes
    it to `max_bytes`)."""

    def __init__(
        self,
        base_url: str,
        save_dir: Path,
        max_bytes: int = 2 << 30,
        client: httpx.AsyncClient | None = None,
        api_key: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.root = api_root(base_url).removesuffix("/v1")
        self._headers = {**(headers or {}), **({"Authorization": f"Bearer {api_key}"} if api_key else {})}
        self.save_dir = save_dir
        self.max_bytes = max_bytes
        self._client = client or make_client(30.0, 5.0)
        self._last: dict[str, dict[str, Any]] = {}  # session id -> its last request body (messages, tools)
        self._server_session: str | None = None  # whose request the server's slot saw last
        self.disabled = False  # the server refused slot actions (no --slot-save-path, several slots, shared)
        self._checked = False  # /slots showed one slot, ours
        self.restored: dict[str, int] = {}  # session id -> tokens restored at its last resume (for status/bench)
        self._unsaved: dict[str, asyncio.TimerHandle | None] = {}  # idle sessions not saved yet -> their save timer
        self._tasks: set[asyncio.Task[bool]] = set()

    def idle(self, session_id: str, delay: float = IDLE_SAVE_S) -> None:
        """The session's turn ended: save it once it has stayed idle `delay` seconds (a conversation going on needs
        no file), or at once when another session is about to take the slot, or when it closes."""
        self._cancel_timer(session_id)
        self._unsaved[session_id] = asyncio.get_running_loop().call_later(delay, self._save_soon, session_id)

    def _save_soon(self, session_id: str) -> None:
        task = asyncio.ensure_future(self.save(session_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _cancel_timer(self, session_id: str) -> None:
        timer = self._unsaved.get(session_id)
        if timer is not None:
            timer.cancel()

    async def flush(self) -> None:
        """Save what is unsaved (only the session the slot holds can be), and wait for saves under way."""
        for session_id in list(self._unsaved):
            self._cancel_timer(session_id)
            await self.save(session_id)
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def wrap(self, provider: Provider, session_id: str) -> Provider:
        return _SessionProvider(provider, self, session_id)

    async def _post(self, path: str, body: dict[str, Any]) -> Any:
        response = await self._client.post(self.root + path, **json_body(body, self._headers))
        response.raise_for_status()
        return response.json()

    async def _render(self, body: dict[str, Any]) -> str:
        rendered = await self._post("/apply-template", {k: body[k] for k in ("messages", "tools") if k in body})
        prompt = rendered.get("prompt") if isinstance(rendered, dict) else None
        if not isinstance(prompt, str):
            raise ValueError("no prompt in /apply-template's answer")
        return prompt

    async def _model(self) -> str:
        response = await self._client.get(self.root + "/props", headers=self._headers)
        response.raise_for_status()
        props = response.json()
        settings = props.get("default_generation_settings") or {}
        if props.get("total_slots", 1) != 1 or props.get("role") == "router":
            raise ValueError("several slots: a saved session cannot be told from another")
        await self._own_slot()
        return f"{props.get('model_path')}|{settings.get('n_ctx')}"

    async def _own_slot(self) -> None:
        """`/slots` must list exactly one slot: more (or none, or no answer) is a shared server, never saved to."""
        if self._checked:
            return
        response = await self._client.get(self.root + "/slots", headers=self._headers)
        slots = response.json() if response.status_code == 200 else None
        if not isinstance(slots, list) or len(slots) != 1:
            self.disabled = True
            raise ValueError("/slots does not show one slot of our own: a shared server, slots left alone")
        self._checked = True

    async def before_request(self, session_id: str, body: dict[str, Any]) -> None:
        """Restore the session's saved cache if the server's slot holds something else and the saved prompt is a
        prefix of this one; then remember this request as the session's last."""
        self._cancel_timer(session_id)
        self._unsaved.pop(session_id, None)  # active again: saved when it next goes idle
        previous = self._server_session
        if previous is not None and previous != session_id and previous in self._unsaved:
            await self.save(previous)  # the slot is about to be reused: keep the idle session's cache first
        try:
            if not self.disabled and self._server_session != session_id:
                await self._restore(session_id, body)
        except (httpx.HTTPError, ValueError, OSError) as exc:
            log.debug("slot restore skipped for %s: %s", session_id, exc)
        finally:
            self._last[session_id] = {k: body[k] for k in ("messages", "tools") if k in body}
            self._server_session = session_id

    async def _restore(self, session_id: str, body: dict[str, Any]) -> None:
        name = slot_file(session_id)
        try:
            record = SlotRecord.model_validate_json((self.save_dir / name).with_suffix(".json").read_bytes())
        except (OSError, ValidationError):
            return  # never saved (or a record we cannot trust): evaluate normally
        if record.model != await self._model():
            return
        prompt = await self._render(body)
        head = prompt[: record.prompt_chars].encode()
        if len(head) < record.prompt_chars or hashlib.sha256(head).hexdigest() != record.prompt_sha256:
            log.debug("slot restore skipped for %s: the history changed since it was saved", session_id)
            return
        answer = await self._post("/slots/0?action=restore", {"filename": name})
        self.restored[session_id] = int(answer.get("n_restored") or 0) if isinstance(answer, dict) else 0

    async def save(self, session_id: str) -> bool:
        """Save the slot if it still holds this session's last request (nothing else ran since)."""
        self._cancel_timer(session_id)
        self._unsaved.pop(session_id, None)
        body = self._last.get(session_id)
        if self.disabled or body is None or self._server_session != session_id:
            return False
        name = slot_file(session_id)
        try:
            model = await self._model()
            prompt = await self._render(body)
            answer = await self._post("/slots/0?action=save", {"filename": name})
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code in (400, 501):  # no --slot-save-path: stop trying
                self.disabled = True
            log.debug("slot save failed for %s: %s", session_id, exc)
            return False
        except (httpx.HTTPError, ValueError) as exc:
            log.debug("slot save failed for %s: %s", session_id, exc)
            return False
        record = SlotRecord(
            prompt_sha256=hashlib.sha256(prompt.encode()).hexdigest(),
            prompt_chars=len(prompt.encode()),
            n_saved=int(answer.get("n_saved") or 0) if isinstance(answer, dict) else 0,
            model=model,
        )
        try:
            self.save_dir.mkdir(parents=True, exist_ok=True)
            (self.save_dir / name).with_suffix(".json").write_text(record.model_dump_json())
            self._prune()
        except OSError as exc:
            log.debug("slot record not written for %s: %s", session_id, exc)
            return False
        return True

    def forget(self, session_id: str) -> None:
        """A deleted session: its saved cache goes too."""
        self._last.pop(session_id, None)
        for suffix in (".bin", ".json"):
            (self.save_dir / slot_file(session_id)).with_suffix(suffix).unlink(missing_ok=True)

    def _prune(self) -> None:
        """Oldest saved sessions go first once the directory holds more than max_bytes."""
        files = sorted(self.save_dir.glob("agent-server-*.bin"), key=lambda p: p.stat().st_mtime, reverse=True)
        total = 0
        for path in files:
            total += path.stat().st_size
            if total > self.max_bytes:
                path.unlink(missing_ok=True)
                path.with_suffix(".json").unlink(missing_ok=True)

    async def aclose(self) -> None:
        await self.flush()
        await self._client.aclose()


def slot_cache_for(llm: LLMConfig, provider: Provider, info: ModelInfo | None) -> SlotCache | None:
    """A SlotCache when the provider is a llama.cpp server and llm.slot_save_path names its --slot-save-path (the
    embedded server's own folder by default); its requests carry the server's key."""
    from .embedded.server import embedded_at

    embedded = embedded_at(provider.base_url)
    save_path = llm.slot_save_path or (str(embedded.slot_save_path) if embedded is not None else None)
    if save_path is None or provider.name != "openai" or not is_llamacpp(info) or routed(info):
        return None
    key = embedded.api_key if embedded is not None else llm.api_key
    headers = None if embedded is not None else llm.headers
    return SlotCache(
        provider.base_url, Path(save_path).expanduser(), llm.slot_save_max_mb << 20, api_key=key, headers=headers
    )


class _SessionProvider:
    """The provider as one session's turn sees it: each request first passes the slot cache."""

    def __init__(self, inner: Provider, cache: SlotCache, session_id: str) -> None:
        self._inner = inner
        self._cache = cache
        self._session_id = session_id
        self.name = inner.name
        self.base_url = inner.base_url

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        await self._cache.before_request(self._session_id, build_payload(request))
        stream = self._inner.stream_chat(request)
        try:
            async for event in stream:
                yield event
        finally:
            # Closing the inner stream closes the HTTP response at once, so a cancelled turn frees the slot.
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()

    async def list_models(self) -> list[ModelInfo]:
        return await self._inner.list_models()

    async def model_info(self, model: str) -> ModelInfo:
        return await self._inner.model_info(model)

    async def embed(self, model: str, inputs: list[str]) -> list[list[float]]:
        return await self._inner.embed(model, inputs)

    async def aclose(self) -> None:
        """The shared provider outlives the turn: the service closes it."""
