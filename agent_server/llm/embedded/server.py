"""Start, share and stop the embedded llama.cpp child process.

One child per (model file, window, threads) per agent-server process, shared by every session. It is stopped at
exit (atexit), and it stops itself when this process dies (it watches its stdin and asks the kernel for a signal).
A child that crashed or was killed is started again, on the same port, by the next request that needs it.

The child answers only requests that carry this process's key (issue 38): a random key made per server object, sent
to the child on its stdin (never on its command line or in its environment, which other processes can read), and
sent by agent-server's own requests as `Authorization: Bearer`. Without it llama.cpp answers 401, so another local
process, or a web page the user opens, cannot use the model or write slot files; the child also grants no web origin
CORS access (runner.py). The key is never logged, shown or written anywhere else.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import errno
import importlib.util
import logging
import os
import secrets
import signal
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import platformdirs

from ...config import EmbeddedConfig
from ...errors import LLMError
from .install_hint import install_command

log = logging.getLogger(__name__)

START_TIMEOUT_S = 300.0


class EmbeddedServerError(LLMError):
    """The embedded llama.cpp could not start or stopped; the message says why and what to do."""


def cache_root(config: EmbeddedConfig) -> Path:
    if config.cache_dir:
        return Path(config.cache_dir).expanduser()
    return Path(platformdirs.user_cache_dir("agent-server"))


def models_dir(config: EmbeddedConfig) -> Path:
    return cache_root(config) if config.cache_dir else cache_root(config) / "models"


def slot_save_dir(config: EmbeddedConfig) -> Path:
    """Where llama.cpp writes slot (KV cache) snapshots: POST /slots/{id}?action=save|restore."""
    return Path(platformdirs.user_cache_dir("agent-server")) / "slots"


def xllamacpp_installed() -> bool:
    return importlib.util.find_spec("xllamacpp") is not None


def default_threads() -> int:
    return max(1, min(8, (os.cpu_count() or 2) // 2))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def check_port(port: int) -> None:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise EmbeddedServerError(
                    f"port {port} (llm.embedded.port) is in use on 127.0.0.1: choose another or leave it unset "
                    "for a free one"
                ) from None
            raise EmbeddedServerError(f"cannot use port {port}: {exc}") from None


def available_memory() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_memory(model: Path, context: int) -> None:
    """The weights plus a rough KV cache and working room must fit in the available memory."""
    free = available_memory()
    if free is None:
        return
    need = int(model.stat().st_size * 1.1) + max(context, 4096) * 32 * 1024 + 200 * 1024 * 1024
    if need > free:
        raise EmbeddedServerError(
            f"not enough memory for the embedded model {model.name}: it needs about {need / 2**20:,.0f} MiB, "
            f"{free / 2**20:,.0f} MiB are available. Close something, lower llm.embedded.context, or use a "
            "smaller model."
        )


@dataclass
class EmbeddedServer:
    model: Path
    alias: str
    context: int
    threads: int
    port: int
    log_path: Path
    slot_save_path: Path
    proc: asyncio.subprocess.Process | None = None
    started_s: float = 0.0
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Only agent-server knows it; repr=False keeps it out of every repr, log line and error message.
    api_key: str = field(default_factory=lambda: secrets.token_urlsafe(32), repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def ensure_running(self) -> None:
        """Start the child if it is not running (first use, or after a crash); wait until it serves."""
        if self.running:
            return
        async with self._lock:
            if self.running:
                return
            if self.proc is not None:
                log.warning("embedded llama.cpp exited (%s); starting it again", self.proc.returncode)
            await self._start()

    async def _start(self) -> None:
        if not xllamacpp_installed():
            raise EmbeddedServerError(f"the embedded model needs xllamacpp: {install_command()}")
        check_memory(self.model, self.context)
        self.slot_save_path.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        # -P: the server's working directory is the workspace, and `python -m` would put it first on sys.path (a
        # repository's `agent_server/` folder or `xllamacpp.py` would run in the runner's place).
        args = [
            sys.executable, "-P", "-m", "agent_server.llm.embedded.runner", "--model", str(self.model),
            "--port", str(self.port), "--ctx", str(self.context), "--threads", str(self.threads),
            "--alias", self.alias, "--slot-save-path", str(self.slot_save_path), "--api-key-stdin",
        ]  # fmt: skip
        began = time.monotonic()
        with self.log_path.open("ab") as out:
            self.proc = await asyncio.create_subprocess_exec(
                *args, stdin=asyncio.subprocess.PIPE, stdout=out, stderr=out, start_new_session=True
            )
        _live[id(self)] = self
        try:
            await self._send_key()
            await self._wait_healthy()
        except BaseException:
            await self.stop()
            raise
        self.started_s = time.monotonic() - began
        log.info("embedded llama.cpp on %s (%s) up in %.1f s", self.url, self.model.name, self.started_s)

    async def _send_key(self) -> None:
        """The key, as the first line of the child's stdin (the pipe stays open: its end is the child's signal to
        exit)."""
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(self.api_key.encode() + b"\n")
        with contextlib.suppress(ConnectionError):  # a child that died at once: _wait_healthy says why
            await self.proc.stdin.drain()

    async def _wait_healthy(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        async with httpx.AsyncClient(timeout=2.0) as http:
            while time.monotonic() < deadline:
                if self.proc.returncode is not None:
                    raise EmbeddedServerError(self._exit_reason(self.proc.returncode))
                with contextlib.suppress(httpx.HTTPError, OSError, ValueError):
                    response = await http.get(self.url + "/health")
                    if response.status_code == 200 and response.json().get("status") == "ok":
                        return
                try:
                    await asyncio.wait_for(self.proc.wait(), timeout=0.25)
                except TimeoutError:
                    pass
        raise EmbeddedServerError(f"the embedded llama.cpp did not answer in {START_TIMEOUT_S:.0f} s: {self._tail()}")

    def _tail(self) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(lines[-6:])

    def _exit_reason(self, code: int) -> str:
        tail = self._tail()
        if code == -signal.SIGKILL:
            return f"the embedded llama.cpp was killed while loading {self.model.name} (out of memory?): {tail}"
        if "xllamacpp is not installed" in tail:
            return f"the embedded model needs xllamacpp: {install_command()}"
        if "bind" in tail.lower() or "address already in use" in tail.lower():
            return f"port {self.port} is in use on 127.0.0.1 (llm.embedded.port): {tail}"
        return f"the embedded llama.cpp exited with {code} (log {self.log_path}): {tail}"

    async def stop(self) -> None:
        proc, self.proc = self.proc, None
        _live.pop(id(self), None)
        if proc is None or proc.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), timeout=10)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()


def embedded_at(url: str) -> EmbeddedServer | None:
    """The embedded server this process started at `url`, if any (whose key requests to `url` must carry)."""
    root = url.rstrip("/").removesuffix("/v1")
    return next((s for s in _shared.values() if s.url == root), None)


_live: dict[int, EmbeddedServer] = {}
_shared: dict[tuple[str, int, int], EmbeddedServer] = {}


def shared_server(model: Path, alias: str, config: EmbeddedConfig) -> EmbeddedServer:
    """The one server for this model and settings in this process (not started yet if new)."""
    threads = config.threads or default_threads()
    key = (str(model), config.context, threads)
    server = _shared.get(key)
    if server is None or (config.port is not None and server.port != config.port):
        if config.port is not None:
            check_port(config.port)
        port = config.port or free_port()
        server = EmbeddedServer(
            model=model,
            alias=alias,
            context=config.context,
            threads=threads,
            port=port,
            log_path=cache_root(config) / "embedded-llama.log",
            slot_save_path=slot_save_dir(config),
        )
        _shared[key] = server
    return server


@atexit.register
def _stop_all() -> None:
    """The children must not outlive us (they would also notice on their own, via stdin)."""
    for server in list(_live.values()):
        proc = server.proc
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGTERM)
    _live.clear()
