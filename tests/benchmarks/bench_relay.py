"""Stream relay overhead: a whole agent turn through the real server vs a bare httpx read of the same stream.

The fake LLM and agent-server each run as their own process; this script is the editor (tests/lsp_client.py). Reports,
as medians over repetitions:
  (a)  bare httpx read of an N-piece /api/chat stream from the fake (the baseline);
  (b)  the turn through agent-server, from sending agent/session/prompt to receiving its response; ratio b/a
       (target <= 1.05); (b') = b minus the fixed per-turn cost measured with a 1-piece reply, and b'/(a - a1);
  (c)  per-piece latency, from the fake's TCP write of the piece (its perf_counter, i.e. CLOCK_MONOTONIC, shared
       across processes on Linux) to the client's receipt of the notification carrying it: p50/p99 (target p99 < 5 ms),
       for a burst (every piece its own write, no pause) and for paced streams.

    python tests/benchmarks/bench_relay.py [--pieces 2000] [--reps 5] [--latency-pieces 300]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.lsp_client import LspClient  # noqa: E402

MODEL = "qwen3:8b"
BODY = {"model": MODEL, "stream": True, "messages": [{"role": "user", "content": "go"}]}
INDEX = re.compile(r"<(\d+)>")


def words(n: int) -> list[str]:
    """`n` pieces of made-up prose: a stream that repeats one span is cut by the repetition guard, as it should be."""
    rng = random.Random(n)
    syllables = ["ka", "lo", "mi", "ter", "su", "ven", "dra", "po", "li", "qua", "zen", "rho", "tu", "bel"]
    return ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) + " " for _ in range(n)]


def pieces_reply(n: int, coalesce: int = 64) -> dict[str, Any]:
    return {"steps": [{"text": w} for w in words(n)], "coalesce": coalesce}


def indexed_reply(n: int, pause_s: float) -> dict[str, Any]:
    """Pieces `<0>`, `<1>`, ... each in its own TCP write, `pause_s` apart."""
    steps: list[dict[str, Any]] = []
    for i in range(n):
        if pause_s and i:
            steps.append({"delay": pause_s})
        steps.append({"text": f"<{i}>"})
    return {"steps": steps, "coalesce": 1}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Bench:
    def __init__(self, url: str, http: httpx.AsyncClient, client: LspClient, workspace: Path) -> None:
        self.url, self.http, self.client, self.workspace = url, http, client, workspace
        self.chunks = 0  # agent_message_chunk notifications in the last turn

    async def queue(self, reply: dict[str, Any]) -> None:
        (await self.http.post(self.url + "/_fake/script", json=[reply])).raise_for_status()

    async def bare(self, reply: dict[str, Any]) -> float:
        await self.queue(reply)
        start = time.perf_counter()
        async with self.http.stream("POST", self.url + "/api/chat", json=BODY) as response:
            async for _ in response.aiter_bytes():
                pass
        return time.perf_counter() - start

    async def turn(self, reply: dict[str, Any], expect: str | None) -> tuple[float, float, str]:
        """Seconds for one prompt (fresh session so the history is the same each time), its start, its text."""
        new = await self.client.request("agent/session/new", {"cwd": str(self.workspace), "mcpServers": []})
        sid = str(new["sessionId"])
        await self.queue(reply)
        params = {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]}
        start = time.perf_counter()
        result = await self.client.request("agent/session/prompt", params, timeout=120)
        elapsed = time.perf_counter() - start
        text = self.client.text(sid)
        self.chunks = len([u for u in self.client.updates(sid) if u["sessionUpdate"] == "agent_message_chunk"])
        if result.get("stopReason") != "end_turn" or (expect is not None and text != expect):
            raise AssertionError(f"unexpected turn: {result} / {len(text)} chars of text")
        return elapsed, start, sid

    async def latencies(self, n: int, pause_s: float) -> list[float]:
        _, start, sid = await self.turn(indexed_reply(n, pause_s), "".join(f"<{i}>" for i in range(n)))
        chats = [r for r in (await self.http.get(self.url + "/_fake/requests")).json() if r["path"] == "/api/chat"]
        writes: list[tuple[float, int]] = [tuple(w) for w in chats[-1]["writes"]]  # type: ignore[misc]
        written: dict[int, float] = {}
        for when, sent in writes:
            for i in range(len(written), min(sent, n)):
                written[i] = when
        out = []
        for when, method, params in self.client.notifications:
            if when < start or method != "agent/session/update" or params.get("sessionId") != sid:
                continue
            update = params["update"]
            if update["sessionUpdate"] == "agent_message_chunk":
                out.extend(when - written[int(i)] for i in INDEX.findall(update["content"]["text"]))
        if len(out) != n:
            raise AssertionError(f"matched {len(out)} of {n} pieces")
        return out


async def run(url: str, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        workspace = home / "ws"
        workspace.mkdir()
        env = {f"XDG_{d}_HOME": str(home / d.lower()) for d in ("DATA", "CONFIG", "STATE", "CACHE")}
        env["AGENT_SERVER_STORE__PATH"] = str(home / "agent.db")
        env["PYTHONPATH"] = str(ROOT)  # the server runs this tree's code, not whatever the venv installed
        client = await LspClient.start(env=env, cwd=home)
        try:
            await client.initialize(workspace, {"llm": {"provider": "ollama", "baseUrl": url, "model": MODEL}})
            async with httpx.AsyncClient(timeout=60) as http:
                await measure(Bench(url, http, client, workspace), args)
        finally:
            await client.close()


async def measure(b: Bench, args: argparse.Namespace) -> None:
    n = args.pieces
    full, one = pieces_reply(n), pieces_reply(1)
    await b.turn(one, None)  # warm-up: provider, model info, imports on the server side
    await b.bare(full)
    a, a1, t, t1, chunks = [], [], [], [], []
    for _ in range(args.reps):
        a.append(await b.bare(full))
        a1.append(await b.bare(one))
        t.append((await b.turn(full, "".join(words(n))))[0])
        chunks.append(b.chunks)
        t1.append((await b.turn(one, "".join(words(1))))[0])
    ma, ma1, mt, mt1 = (statistics.median(x) * 1000 for x in (a, a1, t, t1))
    print(f"throughput: {n} pieces (64 per write), {args.reps} reps, medians")
    print(f"  (a)  bare httpx read            {ma:8.1f} ms     1-piece read  {ma1:6.1f} ms")
    print(f"  (b)  turn through agent-server  {mt:8.1f} ms     1-piece turn  {mt1:6.1f} ms")
    print(f"       b/a = {mt / ma:.2f}  (target <= 1.05); {statistics.median(chunks):.0f} notifications per turn")
    print(
        f"  (b') b - 1-piece turn = {mt - mt1:.1f} ms;  b'/a = {(mt - mt1) / ma:.2f};  "
        f"b'/(a - 1-piece read) = {(mt - mt1) / (ma - ma1):.2f}"
    )
    print(f"latency per piece, {args.latency_pieces} pieces each in its own write, {args.reps} reps pooled")
    print(f"  {'stream':22s} {'p50 ms':>8s} {'p99 ms':>8s} {'max ms':>8s} {'notes/turn':>10s}  (target p99 < 5 ms)")
    for label, pause in (("burst (no pause)", 0.0), ("1 ms apart", 0.001), ("10 ms apart", 0.01)):
        pooled: list[float] = []
        notes = []
        for _ in range(args.reps):
            pooled.extend(await b.latencies(args.latency_pieces, pause))
            notes.append(b.chunks)
        p50, p99, worst = (x * 1000 for x in (percentile(pooled, 0.5), percentile(pooled, 0.99), max(pooled)))
        print(f"  {label:22s} {p50:8.2f} {p99:8.2f} {worst:8.2f} {statistics.median(notes):10.0f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pieces", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--latency-pieces", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks that the benchmark runs (CI)")
    args = parser.parse_args()
    if args.quick:
        args.pieces, args.reps, args.latency_pieces = 200, 1, 30
    fake = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.fake_llm", "--port", "0", "--model", MODEL],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert fake.stdout is not None
        url = fake.stdout.readline().split()[1]
        asyncio.run(run(url, args))
    finally:
        fake.terminate()
        fake.wait(5)


if __name__ == "__main__":
    main()
