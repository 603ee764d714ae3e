"""Start and stop a real llama-server (for the real_llm lane and the prompt-cache benchmark)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ALIAS = "smollm2-135m"
N_CTX = 2048


@dataclass
class LlamaServer:
    url: str
    model: str
    log: Path
    proc: subprocess.Popen[bytes]

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return json.loads(response.read())

    def options(self, **llm: Any) -> dict[str, Any]:
        """initializationOptions for an agent-server pointed at this server (greedy decoding: reproducible)."""
        return {"llm": {"provider": "openai", "baseUrl": self.url, "model": self.model, "temperature": 0, **llm}}


def binaries_from(out: str) -> tuple[Path, Path] | None:
    """(llama-server, model.gguf) from scripts/real_llm.sh's output, if both exist."""
    values = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    server, model = Path(values.get("LLAMA_SERVER", "")), Path(values.get("LLAMA_MODEL", ""))
    return (server, model) if server.is_file() and model.is_file() else None


def build_or_reuse() -> tuple[Path, Path]:
    proc = subprocess.run(["bash", "scripts/real_llm.sh"], cwd=ROOT, capture_output=True, text=True, timeout=3600)
    found = binaries_from(proc.stdout)
    if proc.returncode != 0 or found is None:
        raise RuntimeError(f"scripts/real_llm.sh failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_llama(binaries: tuple[Path, Path], log: Path, n_ctx: int = N_CTX, *extra: str) -> LlamaServer:
    server, model = binaries
    port = _free_port()
    args = [str(server), "-m", str(model), "-c", str(n_ctx), "--jinja", "--host", "127.0.0.1", "--port", str(port)]
    # One thread by default: on 2 busy cores a second thread spins at every barrier while the first is descheduled
    # (measured: generation 0.7 tok/s with -t 2 against 12 tok/s with -t 1 under load).
    threads = os.environ.get("LLAMA_THREADS", "1")
    args += ["-t", threads, "-np", "1", "--slots", "--alias", ALIAS, "--no-webui", *extra]
    with log.open("wb") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    llama = LlamaServer(f"http://127.0.0.1:{port}", ALIAS, log, proc)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llama-server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if llama.get("/health").get("status") == "ok":
                return llama
        except OSError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"llama-server did not become healthy in 120 s:\n{log.read_text()[-3000:]}")


def stop_llama(llama: LlamaServer) -> None:
    llama.proc.terminate()
    try:
        llama.proc.wait(10)
    except subprocess.TimeoutExpired:
        llama.proc.kill()
        llama.proc.wait()
