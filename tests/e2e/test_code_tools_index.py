"""Issue 41 part 4, where no language server answers: the terminal and ACP faces (and an editor without a language
server for the file) get find_definition and find_references from the workspace index, saying so; without an index
no code tool is offered at all. Through the real CLI, the real `agent-server acp` and the real LSP server."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from tests import server_zygote
from tests.acp.ndjson_client import AcpProcess
from tests.e2e.code_editor import write_sample
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import prompt, sent_messages, tool_results
from tests.fakes.fake_llm import FakeLLMServer, Reply

INDEX_NOTE = "from the index, not a language server"
EDITOR_ONLY = {"hover", "document_symbols", "rename_symbol"}


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return server_zygote.run(
        [*args],
        timeout=timeout, env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip


def chat(fake: FakeLLMServer, workspace: Path, text: str) -> subprocess.CompletedProcess[str]:
    flags = ["--provider", "ollama", "--base-url", fake.url, "--model", fake.models[0].name, "-w", str(workspace)]
    return cli("chat", *flags, text)


def tools_of(body: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools") or []}


def add_library(workspace: Path) -> None:
    """A second definer and user of `total`, so the index's answer is visibly by name."""
    (workspace / "report.py").write_text("from calc import total\n\n\ndef summary(rows):\n    return total(rows)\n")


def test_the_terminal_answers_from_the_index_and_says_so(fake_llm: FakeLLMServer, workspace: Path) -> None:
    write_sample(workspace)
    add_library(workspace)
    fake_llm.script(Reply.text("Hello."))
    assert chat(fake_llm, workspace, "hi").returncode == 0
    assert not tools_of(fake_llm.chat_requests()[-1].json) & {"find_definition", "find_references"}  # no index yet

    built = cli("index", str(workspace))
    assert built.returncode == 0, built.stderr
    fake_llm.script(
        Reply.tool_call("find_definition", {"symbol": "total"}),
        Reply.tool_call("find_references", {"symbol": "calc.total()"}),
        Reply.text("done"),
    )
    proc = chat(fake_llm, workspace, "where is total defined and used?")
    assert proc.returncode == 0, proc.stderr
    first = fake_llm.chat_requests()[-3].json
    assert {"find_definition", "find_references"} <= tools_of(first) and not tools_of(first) & EDITOR_ONLY
    definition, references = tool_results(sent_messages(fake_llm, len(fake_llm.chat_requests()) - 1))[-2:]
    assert INDEX_NOTE in definition and "calc.py:4\n" in definition and "def total(xs):" in definition, definition
    assert INDEX_NOTE in references, references
    for place in (
        "calc.py:14: return total(self.items)",
        "main.py:4: print(total([3]))",
        "report.py:5: return total(rows)",
    ):
        assert place in references, (place, references)


async def test_acp_answers_from_the_index(fake_llm: FakeLLMServer, workspace: Path, tmp_path: Path) -> None:
    write_sample(workspace)
    assert cli("index", str(workspace)).returncode == 0
    args = ["--provider", "ollama", "--base-url", fake_llm.url, "--model", fake_llm.models[0].name]
    env = {"AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"), "AGENT_SERVER_LLM__TOOL_MODE": "native"}
    proc = await AcpProcess.start(args, env, tmp_path)
    try:
        await proc.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        sid = (await proc.request("session/new", {"cwd": str(workspace), "mcpServers": []}))["sessionId"]
        fake_llm.script(Reply.tool_call("find_references", {"symbol": "Basket", "path": "calc.py"}), Reply.text("ok"))
        answer = await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "uses?"}]})
        assert answer["stopReason"] == "end_turn"
    finally:
        await proc.close()
    assert not tools_of(fake_llm.chat_requests()[0].json) & EDITOR_ONLY
    result = tool_results(sent_messages(fake_llm, 1))[-1]
    assert INDEX_NOTE in result and "calc.py:9: class Basket:" in result, result


async def test_an_editor_without_a_language_server_for_the_file_falls_back_to_the_index(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    write_sample(workspace)
    (workspace / "app.js").write_text("const t = total([1]);\n")
    assert cli("index", str(workspace)).returncode == 0
    server = await start_server(workspace, {**llm_options(fake_llm), "codeRequest": True})
    server.handlers["agent/_code"] = lambda params: {"served": False}
    fake_llm.script(
        Reply.tool_call("find_definition", {"path": "app.js", "line": 1, "symbol": "total"}), Reply.text("ok")
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "where is total?") == "end_turn"
    result = tool_results(sent_messages(fake_llm, 1))[-1]
    assert result.startswith("No language server of the editor answers for app.js.") and INDEX_NOTE in result, result
    assert "calc.py:4" in result
