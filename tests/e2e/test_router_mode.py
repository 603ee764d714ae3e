"""llama.cpp's router mode through the real server (issue 40), against the fake router of tests/fakes/fake_router.py
(the real router cannot run here: the prebuilt xllamacpp wheel disables it): the models listed with their load state
and each one's own window, without loading any; a model that is not loaded says so while it loads; the picker switches
between them mid-session; doctor shows them with their state, and what the requests carry."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.acp.ndjson_client import AcpProcess
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import prompt
from tests.e2e.test_cli import run
from tests.fakes.fake_llm import Reply
from tests.fakes.fake_router import FakeRouter, RouterModel

SMALL, BIG = "qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct"


@pytest.fixture
def router() -> Iterator[FakeRouter]:
    fake = FakeRouter([RouterModel(SMALL, n_ctx=8192, loaded=True), RouterModel(BIG, n_ctx=16384, parallel=2)])
    fake.default_reply = Reply.text("ok")
    with fake:
        yield fake


def props_queries(router: FakeRouter) -> list[str]:
    return [r.query for r in router.requests if r.path == "/props"]


async def test_the_models_are_listed_with_their_state_and_own_window_and_none_is_loaded_for_it(
    start_server: Start, workspace: Path, router: FakeRouter
) -> None:
    client = await start_server(workspace, llm_options(router, "openai", model=SMALL))
    listed = await client.request("agent/_models/list", {})
    models = {m["name"]: m for m in listed["models"]}
    assert listed["current"] == SMALL
    assert (models[SMALL]["state"], models[SMALL]["contextLength"]) == ("loaded", 8192)
    # Not loaded: its window from its command line (--ctx-size 32768 over --parallel 2), and it stays unloaded.
    assert (models[BIG]["state"], models[BIG]["contextLength"]) == ("unloaded", 16384)
    assert router.loads == []
    assert all("autoload=false" in q for q in props_queries(router) if "model=" in q)


async def test_a_model_that_is_not_loaded_says_so_while_it_loads_and_the_picker_switches_to_it(
    start_server: Start, workspace: Path, router: FakeRouter
) -> None:
    client = await start_server(workspace, llm_options(router, "openai", model=SMALL))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "hello") == "end_turn"
    assert "loading the model" not in client.text(sid, kind="agent_thought_chunk")
    assert (await client.request("agent/_models/select", {"model": BIG}))["current"] == BIG
    assert await prompt(client, sid, "and now?") == "end_turn"  # the same session, the other model
    said = client.text(sid, kind="agent_thought_chunk")
    assert f"the LLM server is loading the model {BIG} (unloaded)" in said
    assert router.loads == [BIG]
    assert router.chat_requests()[-1].json["model"] == BIG
    models = {m["name"]: m for m in (await client.request("agent/_models/list", {}))["models"]}
    assert (models[BIG]["state"], models[BIG]["contextLength"]) == ("loaded", 16384)  # now from its own /props


def test_doctor_shows_the_routers_models_with_their_state_and_the_requests_headers_by_name(
    router: FakeRouter, workspace: Path
) -> None:
    env = {
        "AGENT_SERVER_LLM__HEADERS": json.dumps({"X-Team-User": "doctor-secret-0123456789"}),
        "AGENT_SERVER_COMPLETION__ENABLED": "false",
    }
    proc = run("doctor", "--json", "--provider", "openai", "--base-url", router.url, "--model", SMALL,
               "-w", str(workspace), env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    states = {m["name"]: (m["state"], m["context_length"]) for m in report["models"]}
    assert states == {SMALL: ("loaded", 8192), BIG: ("unloaded", 16384)}
    assert report["requests"]["headers"] == ["X-Team-User"]
    assert report["requests"]["sessionHeader"] == "X-Session-Affinity"
    assert "certifi" in report["requests"]["ca"] or "SSL_CERT" in report["requests"]["ca"]
    assert "doctor-secret-0123456789" not in proc.stdout + proc.stderr
    assert router.loads == []
    text = run("doctor", "--provider", "openai", "--base-url", router.url, "--model", SMALL, "-w", str(workspace),
               env=env)  # fmt: skip
    assert "X-Team-User (values hidden)" in text.stdout and "unloaded" in text.stdout
    assert "doctor-secret-0123456789" not in text.stdout


async def test_the_acp_picker_says_which_models_the_router_has_loaded_and_switches_to_another(
    router: FakeRouter, workspace: Path, tmp_path: Path
) -> None:
    env = {"AGENT_SERVER_STORE__PATH": str(tmp_path / "a.db"), "AGENT_SERVER_INDEX__ENABLED": "false",
           "HOME": str(tmp_path)}  # fmt: skip
    args = ["--provider", "openai", "--base-url", router.url, "--model", SMALL]
    proc = await AcpProcess.start(args, env, tmp_path)
    try:
        await proc.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        new = await proc.request("session/new", {"cwd": str(workspace), "mcpServers": []})
        picker = next(o for o in new["configOptions"] if o["id"] == "model")
        described = {o["value"]: o.get("description") for o in picker["options"]}
        assert described == {SMALL: "loaded", BIG: "unloaded: the server loads it when it is picked"}
        sid = new["sessionId"]
        await proc.request("session/set_config_option", {"sessionId": sid, "configId": "model", "value": BIG})
        text = [{"type": "text", "text": "hi"}]
        assert await proc.request("session/prompt", {"sessionId": sid, "prompt": text}) == {"stopReason": "end_turn"}
        thoughts = [u["content"]["text"] for u in proc.updates(sid) if u["sessionUpdate"] == "agent_thought_chunk"]
        assert any(f"loading the model {BIG}" in t for t in thoughts)
        assert router.chat_requests()[-1].json["model"] == BIG and router.loads == [BIG]
    finally:
        await proc.close()
