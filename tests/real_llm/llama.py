"""Start and stop a real llama.cpp server (for the real_llm lane and the benchmarks).

By default it is the embedded provider's own child process (`python -m agent_server.llm.embedded.runner`, llama.cpp
from the prebuilt xllamacpp wheel); with `AGENT_SERVER_LLAMA_BUILD=1`, scripts/real_llm.sh also builds llama-server
from source and that binary is used instead (for comparisons).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ALIAS = "smollm2-135m"
N_CTX = 2048
# (llama-server binary or None for the embedded runner, model.gguf)
Binaries = tuple[Path | None, Path]


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


def _values(out: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def binaries_from(out: str, model_key: str = "LLAMA_MODEL") -> Binaries | None:
    """(llama-server or None, model.gguf) from scripts/real_llm.sh's output, if they exist."""
    values = _values(out)
    model = Path(values.get(model_key, ""))
    server = Path(values["LLAMA_SERVER"]) if values.get("LLAMA_SERVER") else None
    if not model.is_file() or (server is not None and not server.is_file()):
        return None
    return server, model


def build_or_reuse() -> Binaries:
    proc = subprocess.run(["bash", "scripts/real_llm.sh"], cwd=ROOT, capture_output=True, text=True, timeout=3600)
    found = binaries_from(proc.stdout)
    if proc.returncode != 0 or found is None:
        raise RuntimeError(f"scripts/real_llm.sh failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_RUNNER_FLAGS = {
    "--embeddings": "--embeddings",
    "--pooling": "--pooling",
    "-b": "--batch",
    "-ub": "--ubatch",
    "--metrics": "--metrics",
}


def _runner_flags(extra: tuple[str, ...]) -> list[str]:
    """llama-server flags in the runner's spelling; one it does not know needs the source build."""
    unknown = [a for a in extra if a.startswith("-") and a not in _RUNNER_FLAGS]
    if unknown:
        raise RuntimeError(f"the embedded runner has no {unknown}: run with AGENT_SERVER_LLAMA_BUILD=1")
    return [_RUNNER_FLAGS.get(a, a) for a in extra]


def start_llama(binaries: Binaries, log: Path, n_ctx: int = N_CTX, *extra: str, alias: str = ALIAS) -> LlamaServer:
    server, model = binaries
    port = _free_port()
    # One thread by default: on 2 busy cores a second thread spins at every barrier while the first is descheduled
    # (measured: generation 0.7 tok/s with -t 2 against 12 tok/s with -t 1 under load).
    threads = os.environ.get("LLAMA_THREADS", "1")
    if server is None:
        args = [sys.executable, "-m", "agent_server.llm.embedded.runner", "--model", str(model), "--port", str(port),
                "--ctx", str(n_ctx), "--threads", threads, "--alias", alias, *_runner_flags(extra)]  # fmt: skip
        stdin = subprocess.PIPE  # the runner exits when this closes (as when the lane dies)
    else:
        args = [str(server), "-m", str(model), "-c", str(n_ctx), "--jinja", "--host", "127.0.0.1", "--port", str(port)]
        args += ["-t", threads, "-np", "1", "--slots", "--alias", alias, "--no-webui", *extra]
        stdin = subprocess.DEVNULL
    with log.open("wb") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=stdin)
    llama = LlamaServer(f"http://127.0.0.1:{port}", alias, log, proc)
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
