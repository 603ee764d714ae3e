"""The model server of a scorecard run: agent-server's own embedded llama.cpp runner (the built-in model's server,
`llm/embedded/runner.py`) in a child process on a free loopback port, with /metrics on for the token counts."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

ALIAS = "qwen2.5-coder-0.5b-instruct"


@dataclass
class ModelServer:
    url: str
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_model_server(gguf: Path, window: int, alias: str = ALIAS, log: Path | None = None) -> ModelServer:
    port = free_port()
    # One thread unless told otherwise: on 2 shared cores a second thread spins at every barrier while the first is
    # descheduled (tests/real_llm/llama.py measured 0.7 against 12 tokens/s under load).
    threads = os.environ.get("LLAMA_THREADS", "1")
    args = [sys.executable, "-m", "agent_server.llm.embedded.runner", "--model", str(gguf), "--port", str(port),
            "--ctx", str(window), "--threads", threads, "--alias", alias, "--metrics"]  # fmt: skip
    out = log.open("wb") if log else subprocess.DEVNULL
    process = subprocess.Popen(args, stdout=out, stderr=out, stdin=subprocess.PIPE)  # exits when stdin closes
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama.cpp exited with {process.returncode} while loading {gguf}")
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return ModelServer(url, process)
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    process.kill()
    raise RuntimeError(f"llama.cpp did not answer /health within 180 s ({gguf})")
