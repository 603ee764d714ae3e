"""Editor context in a prompt (ACP resource / resource_link blocks) reaches the model with its path, and is counted."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import new_session
from tests.e2e.helpers import sent_messages, validate_updates
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient

CALC = "def add(a, b):\n    return a + b\n"
NOTES = "# Notes\nThe release is on Friday.\n"


async def ask(client: LspClient, sid: str, blocks: list[dict[str, object]]) -> str:
    result = await client.request("agent/session/prompt", {"sessionId": sid, "prompt": blocks})
    return str(result["stopReason"])


async def test_resources_and_links_reach_the_model_with_their_paths(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text(CALC)
    (workspace / "docs").mkdir()
    (workspace / "docs" / "notes.md").write_text(NOTES)
    fake_llm.script(Reply.text("ok"))
    sid = await new_session(server, workspace)
    selection = {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 16}}
    blocks: list[dict[str, object]] = [
        {
            "type": "resource",
            "resource": {
                "uri": (workspace / "calc.py").as_uri(),
                "text": "    return a + b",
                "mimeType": "text/x-python",
            },
            "_meta": {"range": selection},
        },
        {"type": "resource_link", "uri": (workspace / "docs" / "notes.md").as_uri(), "name": "notes.md"},
        {"type": "text", "text": "Explain these."},
    ]
    assert await ask(server, sid, blocks) == "end_turn"
    user = sent_messages(fake_llm, 0)[-1]
    assert user["role"] == "user"
    content = user["content"]
    assert "From `calc.py` (lines 2-2):\n```\n    return a + b\n```" in content
    assert f"From `docs/notes.md`:\n```\n{NOTES}\n```" in content, "a linked workspace file is read into the prompt"
    assert content.endswith("Explain these.")
    # The meter counts what the model got: the prompt tokens of a request that carries the files.
    usage = [u for u in server.updates(sid) if u["sessionUpdate"] == "usage_update"]
    assert usage and usage[-1]["used"] > 0 and usage[-1]["size"] > 0
    validate_updates(server)


async def test_a_link_outside_the_workspace_is_only_named(
    server: LspClient, workspace: Path, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("TOKEN=do-not-send\n")
    fake_llm.script(Reply.text("ok"))
    sid = await new_session(server, workspace)
    blocks: list[dict[str, object]] = [
        {"type": "resource_link", "uri": secret.as_uri(), "name": "outside-secret.txt"},
        {"type": "text", "text": "What is in it?"},
    ]
    assert await ask(server, sid, blocks) == "end_turn"
    content = sent_messages(fake_llm, 0)[-1]["content"]
    assert "do-not-send" not in content
    assert f"(see `{secret}`)" in content


async def test_a_large_linked_file_is_cut_with_a_pointer_to_read_file(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    big = "".join(f"line {i}\n" for i in range(5000))
    (workspace / "big.txt").write_text(big)
    fake_llm.script(Reply.text("ok"))
    sid = await new_session(server, workspace)
    blocks: list[dict[str, object]] = [
        {"type": "resource_link", "uri": (workspace / "big.txt").as_uri(), "name": "big.txt"},
        {"type": "text", "text": "Summarize."},
    ]
    assert await ask(server, sid, blocks) == "end_turn"
    content = sent_messages(fake_llm, 0)[-1]["content"]
    assert "read_file for the rest" in content and "line 0\n" in content
    assert "line 4999" not in content
    assert len(content) < len(big) / 2
