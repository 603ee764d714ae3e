"""Cold start of `agent-server serve`: time from spawn to the answer of LSP `initialize`, and the idle memory.

Run: python tests/benchmarks/bench_startup.py [--runs N]
Prints the median time to the `initialize` answer, to the `agent/initialize` answer (the agent is loaded), the
resident memory (RSS of the process and its children) a second after that, and the time from closing its stdin to
its end (what every editor restart and every test's server pays again), with the ratio to two baselines spawned in
the same run the same way (they answer every request at once):
- `python`: a bare Python answering `initialize` with the stdlib (the least any Python server costs);
- `pygls`: the same after `import pygls.lsp.server` (the LSP library the server is built on).
Targets (issue 15): initialize answered in under 400 ms after spawn, idle RSS under 100 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# A minimal LSP server: answers every request with an empty result until stdin closes.
BASELINE = r"""
import sys, json
{imports}
def read():
    n = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":")[1])
    return json.loads(sys.stdin.buffer.read(n))
while True:
    msg = read()
    if "id" in msg:
        body = json.dumps({{"jsonrpc": "2.0", "id": msg["id"], "result": {{"capabilities": {{}}}}}}).encode()
        sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        sys.stdout.buffer.flush()
"""


def frame(msg: dict[str, object]) -> bytes:
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream: object) -> dict[str, object]:
    n = 0
    while True:
        line = stream.readline()  # type: ignore[attr-defined]
        if not line:
            raise RuntimeError("the process closed stdout before answering")
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":")[1])
    result: dict[str, object] = json.loads(stream.read(n))  # type: ignore[attr-defined]
    return result


def rss_kb(pid: int) -> int:
    """Resident memory of pid and its descendants (index workers, MCP servers), from /proc."""
    total = 0
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    todo = [pid]
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def measure(argv: list[str], workspace: Path, env: dict[str, str], idle_s: float) -> tuple[float, float, float, float]:
    """Seconds from spawn to the initialize answer and to the agent/initialize answer (the agent is ready), MB
    resident after `idle_s` more of idling, and seconds from closing stdin to the process's end."""
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "processId": os.getpid(),
            "rootUri": workspace.as_uri(),
            "capabilities": {},
            "workspaceFolders": [{"uri": workspace.as_uri(), "name": workspace.name}],
            "initializationOptions": {"llm": {"provider": "ollama", "baseUrl": "http://127.0.0.1:9", "model": "m"}},
        },
    }
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=workspace, env=env
    )
    assert proc.stdin and proc.stdout
    try:
        proc.stdin.write(frame(init))
        proc.stdin.flush()
        while True:
            msg = read_message(proc.stdout)
            if msg.get("id") == 1:
                break
        elapsed = time.perf_counter() - start
        proc.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        agent_init = {"protocolVersion": 1, "clientCapabilities": {}}
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "agent/initialize", "params": agent_init}))
        proc.stdin.flush()
        while read_message(proc.stdout).get("id") != 2:
            pass
        ready = time.perf_counter() - start
        time.sleep(idle_s)
        rss = rss_kb(proc.pid) / 1024
    finally:
        closed = time.perf_counter()
        proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        ended = time.perf_counter() - closed
    return elapsed, ready, rss, ended


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--idle", type=float, default=1.0, help="seconds to idle before reading the memory")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="PATH",
        help="another checkout (`git worktree add /tmp/before COMMIT`) measured alongside, for before/after; repeatable",
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks that the benchmark runs (CI)")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.idle = 1, 0.2
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        (workspace / ".git").mkdir()
        for i in range(20):
            (workspace / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
        env = {
            **os.environ,
            "AGENT_SERVER_STORE__PATH": str(Path(tmp) / "agent.db"),
            "XDG_CONFIG_HOME": str(Path(tmp) / "config"),
            "XDG_DATA_HOME": str(Path(tmp) / "data"),
            "XDG_CACHE_HOME": str(Path(tmp) / "cache"),
        }
        contenders = {
            "python": [sys.executable, "-c", BASELINE.format(imports="")],
            "pygls": [sys.executable, "-c", BASELINE.format(imports="import pygls.lsp.server")],
            "agent-server serve": [sys.executable, "-m", "agent_server", "serve"],
        }
        for tree in args.tree:  # first on sys.path: wins over the editable install's finder
            code = f"import sys; sys.path.insert(0, {tree!r}); from agent_server.launch import main; sys.exit(main())"
            contenders[f"serve {Path(tree).name}"] = [sys.executable, "-c", code, "serve"]
        times: dict[str, list[float]] = {name: [] for name in contenders}
        readies: dict[str, list[float]] = {name: [] for name in contenders}
        rss: dict[str, list[float]] = {name: [] for name in contenders}
        exits: dict[str, list[float]] = {name: [] for name in contenders}
        measure(contenders["agent-server serve"], workspace, env, 0.2)  # warm the OS file cache and bytecode
        for _ in range(args.runs):
            for name, argv in contenders.items():  # interleaved, so machine load hits every contender alike
                t, r, m, e = measure(argv, workspace, env, args.idle)
                times[name].append(t)
                readies[name].append(r)
                rss[name].append(m)
                exits[name].append(e)
    base_t = statistics.median(times["python"])
    base_m = statistics.median(rss["python"])
    base_r = statistics.median(readies["python"])
    base_e = statistics.median(exits["python"])
    print(
        f"{'':20} {'initialize (ms)':>16} {'x python':>9} {'x pygls':>8} {'agent ready (ms)':>17} {'x python':>9}",
        end="",
    )
    print(f" {'idle RSS (MB)':>14} {'x python':>9} {'exit (ms)':>10} {'x python':>9}")
    pygls_t = statistics.median(times["pygls"])
    for name in contenders:
        t, r, m = statistics.median(times[name]), statistics.median(readies[name]), statistics.median(rss[name])
        print(
            f"{name:20} {t * 1000:16.0f} {t / base_t:9.1f} {t / pygls_t:8.2f} {r * 1000:17.0f} {r / base_r:9.1f}",
            end="",
        )
        e = statistics.median(exits[name])
        print(f" {m:14.1f} {m / base_m:9.1f} {e * 1000:10.0f} {e / base_e:9.1f}")
    server_t = statistics.median(times["agent-server serve"]) * 1000
    server_m = statistics.median(rss["agent-server serve"])
    print(f"targets: initialize < 400 ms ({'met' if server_t < 400 else 'NOT met'}: {server_t:.0f} ms), ", end="")
    print(f"idle RSS < 100 MB ({'met' if server_m < 100 else 'NOT met'}: {server_m:.1f} MB)")


if __name__ == "__main__":
    main()
