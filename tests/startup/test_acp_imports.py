"""`agent-server acp` never loads the editor face: not pygls, not lsprotocol, not `agent_server.protocol`, through a
whole conversation that includes a turn and error answers. Measured with Python's own import log (-X importtime,
via PYTHONPROFILEIMPORTTIME) of the real process, not with timings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.startup.test_lazy_imports import imported_modules

EDITOR_FACE = ("pygls", "lsprotocol", "agent_server.protocol")


def answer(stdout: IO[bytes], want_id: int) -> dict[str, Any]:
    while True:
        line = stdout.readline()
        assert line, "the agent closed stdout"
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == want_id and "method" not in message:
            return message


def test_acp_answers_a_turn_and_errors_without_the_editor_face(
    tmp_path: Path, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(Reply.text("hello"))
    log_path = tmp_path / "importtime.log"
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1", "AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db")}
    flags = ["--provider", "ollama", "--base-url", fake_llm.url, "--model", fake_llm.models[0].name]
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent_server", "acp", *flags],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env, cwd=tmp_path,
        )  # fmt: skip
        assert proc.stdin and proc.stdout
        try:
            answers = []
            requests: list[tuple[str, dict[str, Any]]] = [
                ("initialize", {"protocolVersion": 1, "clientCapabilities": {}}),
                ("session/new", {"cwd": str(workspace), "mcpServers": []}),
                ("session/load", {"sessionId": "sess_nosuch", "cwd": str(workspace), "mcpServers": []}),
                ("session/new", {"cwd": "relative/path", "mcpServers": []}),
            ]
            for number, (method, params) in enumerate(requests, 1):
                message = {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
                proc.stdin.write(json.dumps(message).encode() + b"\n")
                proc.stdin.flush()
                answers.append(answer(proc.stdout, number))
            session = answers[1]["result"]["sessionId"]
            prompt = {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}
            proc.stdin.write(
                json.dumps({"jsonrpc": "2.0", "id": 9, "method": "session/prompt", "params": prompt}).encode()
            )
            proc.stdin.write(b"\n")
            proc.stdin.flush()
            assert answer(proc.stdout, 9)["result"] == {"stopReason": "end_turn"}
            proc.stdin.close()
            proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert answers[2]["error"]["code"] == -32002  # an unknown session: the shared error table's answer
    assert answers[3]["error"]["code"] == -32602  # a relative cwd: invalid params
    modules = imported_modules(log_path.read_text(errors="replace"))
    assert "agent_server.acp_agent.agent" in modules  # the log is real
    loaded = sorted(m for m in modules if any(m == face or m.startswith(face + ".") for face in EDITOR_FACE))
    assert loaded == [], f"the ACP face loaded the editor face: {loaded}"
