"""End to end with a real ACP client no one here wrote: the official TypeScript SDK (@agentclientprotocol/sdk,
pinned in tests/acp/package-lock.json) drives `agent-server acp` through whole sessions (tests/acp/driver.mjs).

The driver asserts what a user would see; this test also validates every recorded message, both directions,
against the ACP v1 schema (tests/schemas/acp-v1-schema.json, the shared reference) and against the newer v1 schema
the pinned SDK ships (node_modules/@agentclientprotocol/sdk/schema/v1/schema.json)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.acp import wire
from tests.fakes.fake_llm import FakeLLMServer, FakeModel

HERE = Path(__file__).parent
NODE = shutil.which("node")
NPM = shutil.which("npm")
pytestmark = pytest.mark.skipif(not (NODE and NPM), reason="needs node and npm (node 20+) for the ACP TypeScript SDK")


@pytest.fixture(scope="session")
def sdk_installed() -> Path:
    """`npm ci` into tests/acp/node_modules (ignored by git) once; the lockfile pins the SDK."""
    marker = HERE / "node_modules" / "@agentclientprotocol" / "sdk" / "package.json"
    lock = HERE / "package-lock.json"
    if not marker.exists() or marker.stat().st_mtime < lock.stat().st_mtime:
        assert NPM is not None
        subprocess.run([NPM, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, check=True, timeout=600)
    return HERE


def test_official_sdk_drives_whole_sessions(sdk_installed: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("first line\nsaved line\n")  # the client's buffer differs (see driver)
    wire_log = tmp_path / "wire.jsonl"
    models = ["qwen3:8b", "small:1b"]
    with FakeLLMServer() as fake:
        fake.models = [FakeModel(name=n, context_length=32768) for n in models]
        config = {
            "agent": [
                sys.executable,
                "-m",
                "agent_server",
                "acp",
                "--provider",
                "ollama",
                "--base-url",
                fake.url,
                "--model",
                models[0],
            ],
            "env": {
                "AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"),
                "AGENT_SERVER_INDEX__ENABLED": "false",
                "AGENT_SERVER_LLM__TOOL_MODE": "native",  # the fake reports tiny prompt counts: no template probe
                "HOME": str(tmp_path),
                "PYTHONPATH": os.pathsep.join(sys.path),
            },
            "fakeUrl": fake.url,
            "workspace": str(workspace),
            "wireLog": str(wire_log),
            "models": models,
        }
        done = subprocess.run(
            [NODE or "node", str(HERE / "driver.mjs"), json.dumps(config)],
            cwd=HERE,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, f"driver failed:\n{done.stderr[-6000:]}\nsummary: {done.stdout[-3000:]}"
    summary = json.loads(done.stdout.strip().splitlines()[-1])

    lines = [json.loads(raw) for raw in wire_log.read_text().splitlines()]
    recorded = [(entry["dir"], entry["line"]) for entry in lines]
    seen = wire.check(recorded)  # shared/reference/acp-v1-schema.json
    assert wire.check(recorded, wire.SDK_SCHEMA) == seen  # and the newer v1 schema the SDK ships
    for definition in (
        "InitializeRequest",
        "InitializeResponse",
        "NewSessionResponse",
        "LoadSessionResponse",
        "ListSessionsResponse",
        "PromptResponse",
        "SessionNotification",
        "CancelNotification",
        "SetSessionModeResponse",
        "SetSessionConfigOptionResponse",
        "RequestPermissionRequest",
        "ReadTextFileRequest",
        "WriteTextFileRequest",
        "CreateTerminalRequest",
        "WaitForTerminalExitRequest",
        "TerminalOutputRequest",
        "ReleaseTerminalRequest",
    ):
        assert seen[definition] > 0, f"the session never exercised {definition}"

    assert {"mode", "model", "sessions"} <= set(summary["commands"])
    assert summary["helloChunks"] > 1, "the answer was streamed in pieces"
    assert summary["usage"] >= 1
    assert {"user_message_chunk", "agent_message_chunk", "tool_call", "tool_call_update"} <= set(summary["replayKinds"])
    # The permission request shows what will change.
    shown = summary["editPermission"]
    assert shown["kind"] == "edit"
    diffs = [c for c in shown.get("content") or [] if c.get("type") == "diff"]
    assert diffs and diffs[0]["newText"] == "first line\nedited line\n", shown
    command = summary["commandPermission"]
    assert "echo hi-from-terminal" in json.dumps(command)
