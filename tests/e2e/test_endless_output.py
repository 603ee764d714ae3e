"""Output without end through the real server (issue 38): an LLM server streaming one line that never ends (Ollama's
NDJSON, OpenAI-compatible SSE, the completion endpoints) and a hook printing without end. Each is read with a bound:
the server's peak memory stays far below what was sent, the stream is cut off with a clear error (the hook's output
is cut), and the server goes on answering.

Memory is the server process's peak resident size (`VmHWM` in /proc/PID/status) before and after.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import prompt, prompt_params, sent_messages
from tests.fakes.fake_llm import FakeLLMServer, FakeModel, Flood, Reply, Text
from tests.lsp_client import LspClient, RpcError

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads peak memory from /proc")

SENT = 400 * 1024 * 1024  # what the fake sends, unless the client hangs up first
GROWTH_LIMIT = 300 * 1024 * 1024  # the bound on the server's peak memory growth


def peak_bytes(client: LspClient) -> int:
    for line in Path(f"/proc/{client.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc/PID/status")


@pytest.mark.parametrize(
    ("provider", "flood"),
    [("ollama", Flood("x", SENT)), ("openai", Flood("x", SENT)), ("openai", Flood("data: x\n", SENT))],
    ids=["ndjson-line", "sse-line", "sse-event-of-endless-lines"],
)
async def test_an_endless_line_from_the_llm_server_is_cut_off_with_a_clear_error(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, provider: str, flood: Flood
) -> None:
    client = await start_server(workspace, llm_options(fake_llm, provider=provider))
    sid = await new_session(client, workspace)
    before = peak_bytes(client)
    fake_llm.script(Reply(steps=[Text("part one "), flood]))
    with pytest.raises(RpcError) as failed:
        await client.request("agent/session/prompt", prompt_params(sid, "hi"), timeout=90)
    assert "MiB without ending a" in failed.value.message and "cut off" in failed.value.message, failed.value.message
    assert peak_bytes(client) - before < GROWTH_LIMIT, "the endless line was buffered"
    assert fake_llm.chat_requests()[-1].wait_done(30) and fake_llm.chat_requests()[-1].disconnected
    fake_llm.script(Reply.text("back to normal"))
    assert await prompt(client, sid, "again") == "end_turn"


LLAMACPP_PROPS = {"default_generation_settings": {"n_ctx": 4096}, "model_alias": "qwen2.5-coder"}


@pytest.mark.parametrize("route", ["/v1/completions", "/api/generate", "/infill"])
async def test_an_endless_completion_line_is_cut_off_and_completion_goes_on(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, route: str
) -> None:
    fake_llm.models = [FakeModel("qwen2.5-coder-1.5b")]
    provider = "ollama" if route == "/api/generate" else "openai"
    if route == "/infill":
        fake_llm.props, fake_llm.flavor = LLAMACPP_PROPS, "openai"
    # Answered by the text before the cursor (empty here), so the /infill probe's own request does not take it.
    fake_llm.fim_by_line = {"": Reply(steps=[Flood("x", SENT)])}
    options: dict[str, Any] = {**llm_options(fake_llm, provider=provider), "completion": {"debounceMs": 0}}
    client = await start_server(workspace, options)
    uri = (workspace / "geo.py").as_uri()
    text = "def area(width, height):\n    \n"
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}
    )
    where = {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 4}, "context": {"triggerKind": 2}}
    before = peak_bytes(client)
    assert await client.request("textDocument/inlineCompletion", where, timeout=90) == {"items": []}
    assert peak_bytes(client) - before < GROWTH_LIMIT, "the endless line was buffered"
    assert [r.path for r in fake_llm.fim_requests()][-1] == route
    said = [p["message"] for _, m, p in client.notifications if m == "window/logMessage"]
    assert any("inline completion failed" in t and "without ending a line" in t for t in said), said
    fake_llm.fim_by_line = {"": Reply.text("return width * height\n")}
    again = await client.request("textDocument/inlineCompletion", where, timeout=30)
    assert again["items"][0]["insertText"] == "return width * height"


def user_config(text: str) -> None:
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "agent-server"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


def post_hook(command: list[str], timeout: float) -> str:
    return f'[[hooks.PostToolUse]]\nmatcher = "*"\ncommand = {json.dumps(command)}\ntimeout_s = {timeout}\n'


async def test_a_hook_printing_without_end_keeps_memory_bounded_and_its_output_is_cut(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    shout = f"import sys\nsys.stderr.buffer.write(b'x' * {SENT // 2})\nsys.exit(2)\n"
    user_config(
        post_hook(["yes"], timeout=3)  # stdout without end, until its timeout
        + post_hook([sys.executable, "-c", shout], timeout=60)  # 200 MB of feedback, then "exit 2"
    )
    (workspace / "a.txt").write_text("alpha")
    client = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(client, workspace)
    before = peak_bytes(client)
    fake_llm.script(Reply.tool_call("read_file", {"path": "a.txt"}), Reply.text("done"))
    # Reading 200 MB through a pipe takes its time on a loaded 2-core machine: the bound is memory, not seconds.
    result = await client.request("agent/session/prompt", prompt_params(sid, "read it"), timeout=300)
    assert result["stopReason"] == "end_turn"
    assert peak_bytes(client) - before < GROWTH_LIMIT, "the hooks' output was buffered"
    result = next(str(m["content"]) for m in sent_messages(fake_llm, 1) if m["role"] == "tool")
    assert "alpha" in result and "[hook: " + "x" * 4000 in result
    assert f"cut: the hook wrote {SENT // 2:,} bytes" in result and len(result) < 6000, len(result)
    said = [p["message"] for _, m, p in client.notifications if m == "window/logMessage"]
    assert any("PostToolUse hook `yes` timed out after 3 s" in t for t in said), said
