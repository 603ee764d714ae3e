"""Issue 42's ACP rough edges as a real ACP client meets them: the official TypeScript SDK
(@agentclientprotocol/sdk, tests/acp/sdk_client.mjs) drives `agent-server acp`, one scenario of
tests/acp/rough_edges.mjs per test, and every message on the wire is checked against the ACP schema.

- permission options: one per kind, so a client mapping options by kind (CodeCompanion) gets "once" when it
  accepts once; "Allow for this session" only for a client that announced it, and there it means the session;
- `thinking`: an on/off dropdown the SDK parses as a select for clients that announced no boolean options, a switch
  for those that did;
- plan mode: an answer that says what would change is the plan, never followed by "call the tools" nudges;
- avante's `<previous_user_message>` prompts: a wrapped `/mode plan` runs, the history is not sent again;
- the DEBUG trace (`--log-level DEBUG --log-file`) holds no command line, though the client is shown it;
- a 97-character block repeated 37 times is cut: the user sees the stop and fewer copies;
- the files format's instructions copied back by the model are no answer (it is asked again and the file is fixed),
  and the session is named by what the user typed, never "The files:"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_server.turn import prompts
from tests.acp import sdk, wire
from tests.fakes.fake_llm import FakeLLMServer, FakeModel

HERE = Path(__file__).parent
MODEL = ["--provider", "ollama", "--model", "qwen3:8b"]
SECRET = "tok_live_5f3a9c0e7d"  # in a command line the model writes: never in the trace
pytestmark = [
    pytest.mark.skipif(not (sdk.NODE and sdk.NPM), reason="needs node and npm (node 20+) for the ACP TypeScript SDK"),
    pytest.mark.timeout(180),
]


def run(scenario: str, tmp_path: Path, **env: str) -> dict[str, Any]:
    """One scenario of rough_edges.mjs against a fresh fake LLM; its summary (the wire checked against the schema)."""
    sdk.install()
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    wire_log = tmp_path / "wire.jsonl"
    with FakeLLMServer() as fake:
        fake.models = [FakeModel(name="qwen3:8b", context_length=32768)]
        config = {
            "scenario": scenario,
            "agent": [sys.executable, "-m", "agent_server", "acp", "--base-url", fake.url, *MODEL],
            "env": {
                "AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"),
                "AGENT_SERVER_INDEX__ENABLED": "false",
                "AGENT_SERVER_LLM__TOOL_MODE": "native",
                "AGENT_SERVER_AGENT__EDIT_FORMAT": "tools",
                "HOME": str(tmp_path),
                "PYTHONPATH": os.pathsep.join(sys.path),
                **env,
            },
            "fakeUrl": fake.url,
            "workspace": str(workspace),
            "wireLog": str(wire_log),
            "traceLog": str(tmp_path / "trace.log"),
            "secret": SECRET,
            # what a small model copied back (turn/prompts.py): the files format's own instructions
            "echo": prompts.FILES_WHOLE_ONE.format(path="leap.py") + "\n" + prompts.FILES_NUDGE,
        }
        done = subprocess.run(
            [sdk.NODE or "node", str(HERE / "rough_edges.mjs"), json.dumps(config)],
            cwd=HERE,
            capture_output=True,
            text=True,
            timeout=150,
        )
    assert done.returncode == 0, f"{scenario} failed:\n{done.stderr[-5000:]}\nsummary: {done.stdout[-3000:]}"
    recorded = [(e["dir"], e["line"]) for e in map(json.loads, wire_log.read_text().splitlines())]
    wire.check(recorded, wire.SDK_SCHEMA)
    summary: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return summary


def test_a_client_mapping_permission_options_by_kind_accepts_once_and_the_session_option_is_asked_for(
    tmp_path: Path,
) -> None:
    summary = run("permissionKinds", tmp_path)
    assert ["Allow for this session", "allow_once"] in summary["sessionOffered"][0]


def test_thinking_is_a_dropdown_the_sdk_parses_unless_the_client_draws_switches(tmp_path: Path) -> None:
    summary = run("thinkingOption", tmp_path)
    assert summary["withoutBooleans"]["type"] == "select" and summary["withBooleans"]["type"] == "boolean"


def test_plan_mode_shows_the_plan_without_a_nudge_to_act(tmp_path: Path) -> None:
    assert run("planMode", tmp_path)["planRequests"] == 2


def test_an_avante_wrapped_command_runs_through_the_sdk_prompt(tmp_path: Path) -> None:
    assert "plan" in run("avanteWrapped", tmp_path)["commandText"]


def test_the_debug_trace_keeps_no_command_line_the_client_was_shown(tmp_path: Path) -> None:
    run("traceCommands", tmp_path)
    trace = (tmp_path / "trace.log").read_text()
    traced = [line for line in trace.splitlines() if " agent_server.trace: acp " in line]
    methods = {json.loads(line.split(" ", 6)[-1]).get("method") for line in traced}
    assert {"session/request_permission", "terminal/create", "session/update"} <= methods, methods
    assert SECRET not in trace and "wc -c" not in trace


def test_a_block_repeated_back_to_back_is_cut_and_the_user_told(tmp_path: Path) -> None:
    assert run("repeatedBlock", tmp_path)["repeat"]["copies"] < 30


def test_instructions_copied_back_are_no_answer_and_the_title_is_what_the_user_typed(tmp_path: Path) -> None:
    summary = run("echoedInstructions", tmp_path, AGENT_SERVER_AGENT__EDIT_FORMAT="files")
    assert summary["titles"] == ["Fix is_leap in leap.py"]
