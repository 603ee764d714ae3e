"""Permission options an ACP client can map by kind: clients pick options by `kind`, so two options of one kind
make "Accept" mean something else. "Allow for this session" is offered only to clients that say they know it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.acp.ndjson_client import AcpProcess
from tests.acp_schema import validate
from tests.fakes.fake_llm import FakeLLMServer, Reply


async def _asked_options(tmp_path: Path, fake_llm: FakeLLMServer, caps: dict[str, Any]) -> list[dict[str, Any]]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "notes.md").write_text("old\n")
    env = {
        "AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"),
        "AGENT_SERVER_INDEX__ENABLED": "false",
        "AGENT_SERVER_LLM__TOOL_MODE": "native",
        "HOME": str(tmp_path),
    }
    args = ["--provider", "ollama", "--base-url", fake_llm.url, "--model", "qwen3:8b"]
    proc = await AcpProcess.start(args, env, tmp_path)
    asked: list[dict[str, Any]] = []

    async def permission(params: dict[str, Any]) -> dict[str, Any]:
        validate("RequestPermissionRequest", params)
        asked.append(params)
        once = next(o for o in params["options"] if o["kind"] == "allow_once")  # a client mapping by kind
        return {"outcome": {"outcome": "selected", "optionId": once["optionId"]}}

    try:
        proc.answers["session/request_permission"] = permission
        await proc.request("initialize", {"protocolVersion": 1, "clientCapabilities": caps})
        sid = (await proc.request("session/new", {"cwd": str(ws), "mcpServers": []}))["sessionId"]
        fake_llm.script(
            Reply.tool_call("write_file", {"path": "notes.md", "content": "one\n"}),
            Reply.tool_call("write_file", {"path": "notes.md", "content": "two\n"}),
            Reply.text("done"),
        )
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "write notes twice"}]}
        assert await proc.request("session/prompt", prompt) == {"stopReason": "end_turn"}
    finally:
        await proc.close()
    assert (ws / "notes.md").read_text() == "two\n"
    return asked


async def test_a_client_that_maps_by_kind_gets_one_option_per_kind_and_allow_once_means_once(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    asked = await _asked_options(tmp_path, fake_llm, {})
    assert len(asked) == 2, "'allow once' allowed once: the second write was asked about again"
    kinds = [o["kind"] for o in asked[0]["options"]]  # one per kind: "the allow_once option" is one option
    assert len(kinds) == len(set(kinds)) == 4
    assert "allow_session" not in [o["optionId"] for o in asked[0]["options"]]


async def test_a_client_that_announces_the_session_option_is_offered_it(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    caps = {"_meta": {"agentServer": {"sessionPermission": True}}}
    asked = await _asked_options(tmp_path, fake_llm, caps)
    ids = [o["optionId"] for o in asked[0]["options"]]
    assert ids.index("allow_once") < ids.index("allow_session"), "a pick of the first allow_once still means once"


async def test_thinking_is_a_switch_only_for_clients_that_draw_switches(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {"AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"), "AGENT_SERVER_INDEX__ENABLED": "false"}
    args = ["--provider", "ollama", "--base-url", fake_llm.url, "--model", "qwen3:8b"]
    for caps, kind in (({}, "select"), ({"session": {"configOptions": {"boolean": {}}}}, "boolean")):
        proc = await AcpProcess.start(args, {**env, "HOME": str(tmp_path)}, tmp_path)
        try:
            await proc.request("initialize", {"protocolVersion": 1, "clientCapabilities": caps})
            new = await proc.request("session/new", {"cwd": str(ws), "mcpServers": []})
            validate("NewSessionResponse", new)
            assert {o["id"]: o["type"] for o in new["configOptions"]}["thinking"] == kind
            value: Any = "off" if kind == "select" else False
            params = {"sessionId": new["sessionId"], "configId": "thinking", "value": value}
            changed = await proc.request("session/set_config_option", params)
            [thinking] = [o for o in changed["configOptions"] if o["id"] == "thinking"]
            assert thinking["currentValue"] == value
        finally:
            await proc.close()
