"""A fresh `agent-server serve` answers `initialize` without loading what only some features need.

Tree-sitter, the MCP SDK and rich cost much of a cold start and are needed only by some features: they load on first
use.
Measured with Python's own import log (-X importtime, via PYTHONPROFILEIMPORTTIME), not with timings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

# numpy and the index itself still load at start while IndexService (agent/indexing.py) opens the workspace index
# in its constructor to see whether one was built before.
HEAVY = ("tree_sitter", "tree_sitter_language_pack", "mcp", "rich", "agent_server.tools.mcp.manager")


def frame(msg: dict[str, Any]) -> bytes:
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_answer(stream: IO[bytes], want_id: int) -> dict[str, Any]:
    while True:
        length = 0
        while True:
            line = stream.readline()
            assert line, "the server closed stdout"
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        msg: dict[str, Any] = json.loads(stream.read(length))
        if msg.get("id") == want_id and "method" not in msg:
            return msg


def imported_modules(log: str) -> set[str]:
    return {line.rsplit("|", 1)[1].strip() for line in log.splitlines() if line.startswith("import time:")}


def serve_and_log(tmp_path: Path, workspace: Path, requests: list[tuple[str, dict[str, Any]]]) -> set[str]:
    """Run serve, send initialize/initialized and `requests` (each answered), shut down; the modules it imported."""
    (workspace / ".git").mkdir(exist_ok=True)
    (workspace / "m.py").write_text("def f(x):\n    return x\n")
    log_path = tmp_path / "importtime.log"
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1", "AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db")}
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent_server", "serve"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env, cwd=tmp_path,
        )  # fmt: skip
        assert proc.stdin and proc.stdout
        try:
            llm = {"provider": "ollama", "baseUrl": "http://127.0.0.1:9", "model": "m"}
            init = {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {}}
            init["initializationOptions"] = {"llm": llm}
            messages: list[tuple[str, dict[str, Any]]] = [("initialize", init), ("initialized", {}), *requests]
            next_id = 1
            for method, params in messages:
                if method == "initialized":
                    proc.stdin.write(frame({"jsonrpc": "2.0", "method": method, "params": params}))
                    proc.stdin.flush()
                    continue
                proc.stdin.write(frame({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}))
                proc.stdin.flush()
                answer = read_answer(proc.stdout, next_id)
                assert "error" not in answer, answer
                next_id += 1
            proc.stdin.write(frame({"jsonrpc": "2.0", "id": next_id, "method": "shutdown", "params": None}))
            proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit", "params": None}))
            proc.stdin.close()
            proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return imported_modules(log_path.read_text(errors="replace"))


def test_serve_answers_initialize_and_opens_a_session_without_the_heavy_modules(
    tmp_path: Path, workspace: Path
) -> None:
    requests = [
        ("agent/initialize", {"protocolVersion": 1, "clientCapabilities": {}}),
        ("agent/session/new", {"cwd": str(workspace), "mcpServers": []}),
    ]
    modules = serve_and_log(tmp_path, workspace, requests)
    assert "agent_server.protocol.server" in modules  # the log is real
    loaded = sorted(m for m in modules if m in HEAVY or m.split(".")[0] in HEAVY)
    assert loaded == [], f"loaded at start: {loaded}"


def test_the_index_loads_when_it_is_used(tmp_path: Path, workspace: Path) -> None:
    modules = serve_and_log(tmp_path, workspace, [("agent/_index/status", {})])
    assert "agent_server.index.workspace_index" in modules
