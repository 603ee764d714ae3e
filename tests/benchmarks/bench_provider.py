"""Provider parse overhead: consuming `stream_chat` vs a bare httpx read of the same streamed bytes.

The fake server runs as a separate process (so its rendering does not compete for our GIL) and streams 10,000 pieces
per request, 64 lines/events per TCP write. Reports the median of several repetitions and the ratio provider/bare for
Ollama (NDJSON) and OpenAI (SSE) framing, and for SSE behind `RetryingProvider` as the agent runs it; the target is a
ratio <= 1.3. The wall-clock ratio moves with the machine's load, so our process's CPU time per piece is printed too
(steadier), beside orjson's cost to decode every event in full (the SSE parser skips most of that once it has learnt
the events' template).

    python tests/benchmarks/bench_provider.py [--pieces 10000] [--reps 7]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import orjson

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent_server.llm.base import ChatRequest  # noqa: E402
from agent_server.llm.ollama import OllamaProvider  # noqa: E402
from agent_server.llm.openai_compat import OpenAIProvider  # noqa: E402
from agent_server.llm.resilient import RetryingProvider  # noqa: E402
from agent_server.messages import Message, TextDelta  # noqa: E402


async def queue(client: httpx.AsyncClient, url: str, pieces: int) -> None:
    reply = {"steps": [{"text": "tok "}] * pieces, "coalesce": 64}
    (await client.post(url + "/_fake/script", json=[reply])).raise_for_status()


async def bare(client: httpx.AsyncClient, url: str, path: str, body: dict[str, object]) -> tuple[float, float, bytes]:
    """Wall seconds, our CPU seconds, and the body."""
    start, cpu = time.perf_counter(), time.process_time()
    chunks = []
    async with client.stream("POST", url + path, json=body) as response:
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
    return time.perf_counter() - start, time.process_time() - cpu, b"".join(chunks)


def json_floor(raw: bytes) -> float:
    """CPU time of orjson.loads alone over every JSON line of the body: the cost no parser can avoid."""
    lines = [ln[6:] if ln.startswith(b"data: ") else ln for ln in raw.split(b"\n")]
    lines = [ln for ln in lines if ln.startswith(b"{")]
    start = time.process_time()
    for ln in lines:
        orjson.loads(ln)
    return time.process_time() - start


async def through(provider: OllamaProvider | OpenAIProvider | RetryingProvider, pieces: int) -> tuple[float, float]:
    request = ChatRequest(model="m", messages=[Message(role="user", content="go")])
    start, cpu = time.perf_counter(), time.process_time()
    text = 0
    async for event in provider.stream_chat(request):
        if isinstance(event, TextDelta):
            text += 1
    elapsed, used = time.perf_counter() - start, time.process_time() - cpu
    assert text == pieces, text
    return elapsed, used


async def measure(url: str, pieces: int, reps: int) -> None:
    async with httpx.AsyncClient(timeout=60) as client:
        for name, path, provider in (
            ("ollama /api/chat NDJSON", "/api/chat", OllamaProvider(url, client=client)),
            ("openai /v1 SSE", "/v1/chat/completions", OpenAIProvider(url, client=client)),
            # As the agent uses it: wrapped for retries, one more async-generator layer per event.
            ("openai SSE + retrying", "/v1/chat/completions", RetryingProvider(OpenAIProvider(url, client=client))),
        ):
            body: dict[str, object] = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}]}
            if path.startswith("/v1"):
                body["stream_options"] = {"include_usage": True}
            base_times, prov_times, base_cpu, prov_cpu, floors = [], [], [], [], []
            for rep in range(reps + 1):  # the first round warms up and is dropped
                await queue(client, url, pieces)
                b, bc, raw = await bare(client, url, path, body)
                floors.append(json_floor(raw))
                await queue(client, url, pieces)
                p, pc = await through(provider, pieces)
                if rep:
                    base_times.append(b)
                    prov_times.append(p)
                    base_cpu.append(bc)
                    prov_cpu.append(pc)
            mb, mp, mf = statistics.median(base_times), statistics.median(prov_times), statistics.median(floors)
            us = [statistics.median(x) / pieces * 1e6 for x in (base_cpu, prov_cpu)] + [mf / pieces * 1e6]
            print(
                f"{name:24s} pieces={pieces} reps={reps}  bare httpx {mb * 1000:6.1f} ms  "
                f"provider {mp * 1000:6.1f} ms  ratio {mp / mb:4.2f} (target <= 1.3)  "
                f"client CPU per piece: bare {us[0]:.2f} us, provider {us[1]:.2f} us, orjson.loads alone {us[2]:.2f} us"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pieces", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks that the benchmark runs (CI)")
    args = parser.parse_args()
    if args.quick:
        args.pieces, args.reps = 500, 1
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.fake_llm"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split()[1]
        asyncio.run(measure(url, args.pieces, args.reps))
    finally:
        proc.terminate()
        proc.wait(5)


if __name__ == "__main__":
    main()
