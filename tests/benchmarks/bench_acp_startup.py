"""Cold start of `agent-server acp`: time from spawn to the answer of ACP `initialize`, then of `session/new`.

Run: python tests/benchmarks/bench_acp_startup.py [--runs N]
Spawns `agent-server acp` and `agent-server serve` alternately in the same run (the same machine load for both)
and prints the medians and the ratio acp / serve for `initialize`; `session/new` (which opens the store and asks
the LLM server, here the fake, for its models) is reported for acp alone.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))

from tests.acp.ndjson_client import AcpProcess
from tests.fakes.fake_llm import FakeLLMServer
from tests.lsp_client import LspClient


def _env(tmp: str) -> dict[str, str]:
    return {"AGENT_SERVER_STORE__PATH": str(Path(tmp) / "bench.db"), "AGENT_SERVER_INDEX__ENABLED": "false"}


async def acp_once(fake: FakeLLMServer, tmp: str) -> tuple[float, float]:
    start = time.perf_counter()
    args = ["--provider", "ollama", "--base-url", fake.url, "--model", fake.models[0].name]
    proc = await AcpProcess.start(args, _env(tmp), Path(tmp))
    await proc.request("initialize", {"protocolVersion": 1})
    initialized = time.perf_counter() - start
    await proc.request("session/new", {"cwd": tmp, "mcpServers": []})
    created = time.perf_counter() - start
    await proc.close()
    return initialized, created


async def serve_once(fake: FakeLLMServer, tmp: str) -> float:
    start = time.perf_counter()
    client = await LspClient.start(env=_env(tmp), cwd=Path(tmp))
    options = {"llm": {"provider": "ollama", "baseUrl": fake.url, "model": fake.models[0].name}}
    await client.initialize(Path(tmp), options)
    initialized = time.perf_counter() - start
    await client.close()
    return initialized


async def main(runs: int) -> None:
    acp_init: list[float] = []
    acp_new: list[float] = []
    serve_init: list[float] = []
    with FakeLLMServer() as fake, tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            a, n = await acp_once(fake, tmp)
            acp_init.append(a)
            acp_new.append(n)
            serve_init.append(await serve_once(fake, tmp))
    ai, si = statistics.median(acp_init), statistics.median(serve_init)
    print(f"acp   initialize answered after spawn: median {ai * 1000:.0f} ms ({runs} runs)")
    print(f"serve initialize answered after spawn: median {si * 1000:.0f} ms (baseline, same run)")
    print(f"ratio acp / serve: {ai / si:.2f}")
    print(f"acp   session/new answered after spawn: median {statistics.median(acp_new) * 1000:.0f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks that the benchmark runs (CI)")
    args = parser.parse_args()
    asyncio.run(main(1 if args.quick else args.runs))
