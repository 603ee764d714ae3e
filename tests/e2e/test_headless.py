"""`agent-server chat --output-format json|stream-json`: the headless run a script or CI job reads, through the real
CLI process and real HTTP to the fake LLM server. Every line is checked against the shipped schema and every session
update against the ACP schema."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from agent_server.headless import schema_path
from tests import server_zygote
from tests.acp_schema import validate
from tests.fakes.fake_llm import FakeLLMServer, Reply

STREAM = Draft202012Validator(json.loads(schema_path().read_text()))


def chat(
    fake: FakeLLMServer, workspace: Path, *args: str, stdin: str | None = None, base_url: str | None = None
) -> subprocess.CompletedProcess[str]:
    flags = ["--provider", "ollama", "--base-url", base_url or fake.url, "--model", "qwen3:8b", "-w", str(workspace)]
    return server_zygote.run(
        ["chat", *flags, *args],
        timeout=90, input=stdin, env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip


def events(stdout: str) -> list[dict[str, Any]]:
    """Every stdout line is one JSON event that fits the schema; session updates fit ACP's SessionUpdate."""
    out = []
    for line in stdout.splitlines():
        event = json.loads(line)
        errors = list(STREAM.iter_errors(event))
        assert not errors, f"{event['type']} does not fit the headless schema: {errors[0].message[:300]}"
        if event["type"] == "session_update":
            validate("SessionUpdate", event["update"])
        out.append(event)
    return out


def updates(evs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e["update"] for e in evs if e["type"] == "session_update" and e["update"]["sessionUpdate"] == kind]


def test_stream_json_is_the_turn_as_it_runs(fake_llm: FakeLLMServer, workspace: Path) -> None:
    (workspace / "notes.md").write_text("the answer is 42\n")
    fake_llm.script(Reply.tool_call("read_file", {"path": "notes.md"}), Reply.text("It says 42.", pieces=3))
    proc = chat(fake_llm, workspace, "--output-format", "stream-json", "What does notes.md say?")
    assert proc.returncode == 0, proc.stderr
    evs = events(proc.stdout)
    assert evs[0]["type"] == "start" and evs[0]["schema"] == "agent-server.headless/1"
    assert evs[-1]["type"] == "result" and evs[-1]["stopReason"] == "end_turn" and evs[-1]["exitCode"] == 0
    assert evs[-1]["text"] == "It says 42."
    assert all(e.get("sessionId", evs[0]["sessionId"]) == evs[0]["sessionId"] for e in evs)
    [call] = updates(evs, "tool_call")
    assert call["kind"] == "read" and call["rawInput"] == {"path": "notes.md"}
    finished = [u for u in updates(evs, "tool_call_update") if u.get("status") == "completed"]
    assert finished and "the answer is 42" in json.dumps(finished[-1])
    # Text arrives as deltas, in order, before the result.
    assert "".join(u["content"]["text"] for u in updates(evs, "agent_message_chunk")) == "It says 42."
    # The server's own token counts, per call and summed.
    calls = [u["_meta"]["agentServer"]["call"] for u in updates(evs, "usage_update")]
    assert len(calls) == 2 and all(c["completionTokens"] == 5 and c["promptTokens"] > 0 for c in calls)
    usage = evs[-1]["usage"]
    assert usage["modelCalls"] == 2 and usage["promptTokens"] == sum(c["promptTokens"] for c in calls)
    assert usage["completionTokens"] == 10
    # The session can be resumed by the id the stream named.
    listed = server_zygote.run(
        ["sessions", "list", "--cwd", str(workspace), "--json"],
        timeout=60,
    )  # fmt: skip
    assert evs[0]["sessionId"] in listed.stdout


def test_json_prints_one_object_with_every_event(fake_llm: FakeLLMServer, workspace: Path) -> None:
    fake_llm.script(Reply.text("Hello."))
    proc = chat(fake_llm, workspace, "--output-format", "json", "Say hello")
    assert proc.returncode == 0, proc.stderr
    [line] = proc.stdout.splitlines()
    result = json.loads(line)
    assert not list(STREAM.iter_errors(result))
    assert result["type"] == "result" and result["text"] == "Hello." and result["exitCode"] == 0
    kinds = [e["type"] for e in result["events"]]
    assert kinds[0] == "start" and "session_update" in kinds
    for event in result["events"]:
        assert not list(STREAM.iter_errors(event))


def test_a_write_nobody_approved_is_refused_with_its_own_exit_code(fake_llm: FakeLLMServer, workspace: Path) -> None:
    (workspace / "notes.md").write_text("old\n")
    fake_llm.script(Reply.tool_call("write_file", {"path": "notes.md", "content": "new\n"}), Reply.text("Tried."))
    proc = chat(fake_llm, workspace, "--output-format", "stream-json", "Rewrite notes.md")
    assert proc.returncode == 6, proc.stderr  # approval needed, not given
    evs = events(proc.stdout)
    [asked] = [e for e in evs if e["type"] == "permission"]
    assert asked["toolCall"]["rawInput"]["path"] == "notes.md"
    assert asked["outcome"] == {"outcome": "selected", "optionId": "reject_once"}
    assert evs[-1]["approvalsMissing"] == 1 and evs[-1]["exitCode"] == 6
    assert (workspace / "notes.md").read_text() == "old\n"


def test_allow_rules_from_the_command_line_decide_without_a_person(fake_llm: FakeLLMServer, workspace: Path) -> None:
    (workspace / "notes.md").write_text("old\n")
    fake_llm.script(
        Reply.tool_call("write_file", {"path": "notes.md", "content": "new\n"}),
        Reply.tool_call("run_command", {"command": "touch made-by-command"}),
        Reply.text("Done."),
    )
    proc = chat(
        fake_llm, workspace, "--output-format", "stream-json",
        "--allow", "write_file:notes*", "--deny", "run_command", "Rewrite notes.md, then touch a file",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    evs = events(proc.stdout)
    assert not [e for e in evs if e["type"] == "permission"], "the flags decided: nobody was asked"
    assert (workspace / "notes.md").read_text() == "new\n"
    assert not (workspace / "made-by-command").exists()
    # The edit's diff is in the stream (ACP diff content).
    diffs = [c for u in updates(evs, "tool_call_update") for c in u.get("content") or [] if c["type"] == "diff"]
    assert diffs and diffs[0]["newText"] == "new\n" and diffs[0]["oldText"] == "old\n"


def test_prompt_from_a_file_or_stdin(fake_llm: FakeLLMServer, workspace: Path, tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Question from a file")
    fake_llm.script(Reply.text("A."), Reply.text("B."))
    from_file = chat(fake_llm, workspace, "--output-format", "json", "--prompt-file", str(prompt))
    from_stdin = chat(fake_llm, workspace, "--output-format", "json", "-", stdin="Question from stdin")
    assert json.loads(from_file.stdout)["text"] == "A." and json.loads(from_stdin.stdout)["text"] == "B."
    sent = [r.json["messages"][-1]["content"] for r in fake_llm.requests if r.path.endswith("/chat")]
    assert "Question from a file" in sent[0] and "Question from stdin" in sent[1]


def test_an_unreachable_model_server_has_its_exit_code(fake_llm: FakeLLMServer, workspace: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    proc = chat(fake_llm, workspace, "--output-format", "stream-json", "hi", base_url=f"http://127.0.0.1:{port}")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    result = events(proc.stdout)[-1]
    assert result["type"] == "result" and result["exitCode"] == 3 and result["error"]


def test_max_rounds_has_its_exit_code(fake_llm: FakeLLMServer, workspace: Path) -> None:
    (workspace / "a.txt").write_text("a\n")
    fake_llm.script(*[Reply.tool_call("read_file", {"path": "a.txt"}) for _ in range(3)])
    proc = chat(fake_llm, workspace, "--output-format", "stream-json", "--max-rounds", "1", "Read a.txt")
    assert proc.returncode == 4, proc.stderr
    assert events(proc.stdout)[-1]["stopReason"] == "max_turn_requests"


def test_a_json_run_needs_one_prompt(fake_llm: FakeLLMServer, workspace: Path) -> None:
    proc = chat(fake_llm, workspace, "--output-format", "json")
    assert proc.returncode == 2 and "runs one prompt" in proc.stderr and proc.stdout == ""
    bad = chat(fake_llm, workspace, "--output-format", "json", "--allow", ":x", "hi")
    assert bad.returncode == 2 and "TOOL:PATTERN" in bad.stderr
