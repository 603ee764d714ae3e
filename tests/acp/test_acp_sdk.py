"""End to end with a real ACP client no one here wrote: the official TypeScript SDK (@agentclientprotocol/sdk,
pinned in tests/acp/package-lock.json) drives `agent-server acp` through whole sessions (tests/acp/driver.mjs).

The driver asserts what a user would see; this test also validates every recorded message, both directions,
against the ACP v1 schema (tests/schemas/acp-v1-schema.json, the shared reference) and against the newer v1 schema
the pinned SDK ships (node_modules/@agentclientprotocol/sdk/schema/v1/schema.json)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.acp import sdk, wire
from tests.fakes.fake_llm import FakeLLMServer, FakeModel

API_KEY = "sk-test-0123456789abcdef"  # phase 3 runs with it (env and an MCP server's env): never in the trace

HERE = Path(__file__).parent
NODE = sdk.NODE
NPM = sdk.NPM
pytestmark = pytest.mark.skipif(not (NODE and NPM), reason="needs node and npm (node 20+) for the ACP TypeScript SDK")


@pytest.fixture(scope="session")
def sdk_installed() -> Path:
    """The pinned SDK in tests/acp/node_modules (tests/acp/sdk.py)."""
    sdk.install()
    return HERE


def test_official_sdk_drives_whole_sessions(sdk_installed: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("first line\nsaved line\n")  # the client's buffer differs (see driver)
    wire_log = tmp_path / "wire.jsonl"
    models = ["qwen3:8b", "small:1b"]
    # Phase 3's workspace: its own settings allow commands, which only a trusted workspace may do.
    trusted = tmp_path / "trusted"
    trusted.mkdir()
    (trusted / ".agent-server.toml").write_text('[tools.policy]\nrun_command = "allow"\n')
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "shared.txt").write_text("shared content\n")
    trace = tmp_path / "trace.log"
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
            "trustWorkspace": str(trusted),
            "extraDir": str(extra),
            "traceLog": str(trace),
            "apiKey": API_KEY,
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
        "CreateElicitationRequest",
        "CreateElicitationResponse",
        "LogoutResponse",
        "ForkSessionResponse",
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
    _check_trace(trace, recorded)


def _check_trace(trace: Path, recorded: list[tuple[str, str]]) -> None:
    """`--log-level DEBUG --log-file F`: every message of phase 3, both ways, in order; no key, no file text."""
    text = trace.read_text()
    assert API_KEY not in text
    assert "shared content" not in text and "alpha" not in text  # files read and edited in phase 3
    traced = [line for line in text.splitlines() if " agent_server.trace: acp " in line]
    methods = [json.loads(line.split(" ", 6)[-1]).get("method") for line in traced]
    for method in (
        "initialize",
        "session/new",
        "session/prompt",
        "session/update",
        "fs/read_text_file",
        "fs/write_text_file",
        "elicitation/create",
        "terminal/create",
        "session/fork",
        "logout",
    ):
        assert method in methods, f"{method} missing from the trace"
    # Phase 3 is the last agent process: its messages are the tail of the wire log, each traced once (the order
    # of the two directions may differ by a hair: the trace is written where each side handles the message).
    tail = recorded[-len(traced) :]

    def kinds(entries: list[tuple[str, dict[str, Any]]]) -> Counter[tuple[str, str]]:
        return Counter((d, m.get("method") or f"answer {m.get('id')}") for d, m in entries)

    wire_side = [(d, json.loads(line)) for d, line in tail]
    trace_side = [
        ("client->agent" if " client->agent " in line else "agent->client", json.loads(line.split(" ", 6)[-1]))
        for line in traced
    ]
    assert kinds(trace_side) == kinds(wire_side)
    assert '"text":"<' in text and " chars>" in text  # contents are shown as their length
