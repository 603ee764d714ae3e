"""A llama.cpp server for a benchmark run: xllamacpp in a child process on a free loopback port, metrics on.

(The embedded provider starts the same server for users; a benchmark starts its own so the window and the
metrics endpoint are the benchmark's choice.)
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

CHILD = """
import sys, time
import xllamacpp as x
p = x.CommonParams()
p.model.path = sys.argv[1]
p.n_ctx = int(sys.argv[2])
p.port = int(sys.argv[3])
p.use_jinja = True
p.endpoint_slots = True
p.endpoint_metrics = True
p.n_parallel = 1
p.cpuparams.n_threads = int(sys.argv[4])
server = x.Server(p)
while True:
    time.sleep(3600)
"""


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


def start_model_server(gguf: Path, window: int, threads: int = 2, log: Path | None = None) -> ModelServer:
    port = free_port()
    out = open(log, "wb") if log else subprocess.DEVNULL
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(gguf), str(window), str(port), str(threads)], stdout=out, stderr=out
    )
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
