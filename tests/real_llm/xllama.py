"""A llama.cpp server from the prebuilt `xllamacpp` wheel, in a child process (tests and benchmarks only).

Issue 25's embedded provider (agent_server/llm/embedded/) will replace this at merge time; until then the TTFT
benchmark and the slot-cache tests start the same server this way: `python -m tests.real_llm.xllama MODEL PORT ...`
runs `xllamacpp.Server` until it is killed, so a crash never takes the test process down.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ALIAS = "qwen2.5-coder-0.5b"


def qwen_model() -> Path | None:
    """AGENT_TEST_GGUF, else the Qwen2.5-Coder-0.5B GGUF that scripts/real_llm.sh fetched (verified, cached outside
    the clone); None when neither is there."""
    if env := os.environ.get("AGENT_TEST_GGUF"):
        return Path(env) if Path(env).is_file() else None
    done = subprocess.run(["bash", "scripts/real_llm.sh", "--check"], cwd=ROOT, capture_output=True, text=True)
    values = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    path = Path(values.get("QWEN_MODEL", ""))
    return path if done.returncode == 0 and path.is_file() else None


def xllamacpp_available() -> bool:
    try:
        import xllamacpp  # noqa: F401
    except ImportError:
        return False
    return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class XLlama:
    url: str
    model: str
    slot_dir: Path | None
    proc: subprocess.Popen[bytes]
    log: Path

    def call(self, method: str, path: str, body: dict[str, Any] | None = None, timeout: float = 600) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())

    def options(self, **llm: Any) -> dict[str, Any]:
        """llm settings for an agent-server pointed at this server (greedy decoding: reproducible)."""
        return {"provider": "openai", "base_url": self.url, "model": self.model, "temperature": 0, **llm}

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=20)


def start(
    model: Path, log: Path, n_ctx: int = 8192, slot_dir: Path | None = None, threads: int = 2, wait_s: float = 180
) -> XLlama:
    port = free_port()
    args = [sys.executable, "-m", "tests.real_llm.xllama", str(model), str(port), "--ctx", str(n_ctx)]
    args += ["--threads", str(threads)]
    if slot_dir is not None:
        slot_dir.mkdir(parents=True, exist_ok=True)
        args += ["--slots", str(slot_dir)]
    handle = log.open("ab")
    proc = subprocess.Popen(args, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    server = XLlama(f"http://127.0.0.1:{port}", ALIAS, slot_dir, proc, log)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"xllamacpp server exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            if server.call("GET", "/health", timeout=2).get("status") == "ok":
                return server
        except (OSError, urllib.error.URLError, ValueError):
            pass
        time.sleep(0.3)
    server.stop()
    raise RuntimeError(f"xllamacpp server did not come up in {wait_s:g}s:\n{log.read_text()[-3000:]}")


def _serve() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("port", type=int)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--slots", default=None)
    args = parser.parse_args()
    import xllamacpp as x

    params = x.CommonParams()
    params.model.path = args.model
    params.n_ctx = args.ctx
    params.use_jinja = True
    params.endpoint_slots = True
    params.endpoint_props = True
    params.port = args.port
    params.n_parallel = 1
    # Progress (`return_progress`) is reported once per batch: 256-token batches give a CPU user a figure every few
    # seconds at no measurable cost in prompt speed.
    params.n_batch = 256
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.model_alias = {ALIAS}
    if args.slots:
        params.slot_save_path = args.slots
    server = x.Server(params)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    while True:  # the server runs on its own threads until this process ends
        time.sleep(3600)
    del server


if __name__ == "__main__":
    _serve()
