"""A model server a team shares, through the real server (issue 40): the gateway's own headers on every request and
never in a log, a session-affinity header per session, vLLM's priority, a private CA, a 429 waited out or shown, a
spent budget shown, and slots left alone on a server that is not the session's own."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import prompt, prompt_params
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.fakes.private_ca import make_ca
from tests.lsp_client import LspClient, RpcError

TOKEN = "team-user-token-0123456789"


def served(fake: FakeLLMServer) -> list[Any]:
    return [r for r in fake.requests if not r.path.startswith("/_fake/")]


async def test_the_teams_headers_reach_every_request_and_no_log(
    workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    log_file = tmp_path / "server.log"
    client = await LspClient.start(
        args=["--log-level", "DEBUG", "--log-file", str(log_file)],
        env={"AGENT_SERVER_STORE__PATH": str(tmp_path / "s.db")},
    )
    fake_llm.props = {"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1}
    fake_llm.script(Reply.text("hi"))
    try:
        await client.initialize(workspace, llm_options(fake_llm, "openai", headers={"X-Team-User": TOKEN}))
        sid = await new_session(client, workspace)
        assert await prompt(client, sid, "hello") == "end_turn"
    finally:
        await client.close()
    paths = {r.path for r in served(fake_llm)}
    assert {"/v1/models", "/props", "/v1/chat/completions"} <= paths
    assert all(r.headers.get("x-team-user") == TOKEN for r in served(fake_llm)), paths
    logged = log_file.read_text() + await client.stderr_text()
    assert "initializationOptions" in logged or "X-Team-User" in logged  # DEBUG really logged the settings
    assert TOKEN not in logged


async def test_each_session_keeps_its_own_affinity_key_and_the_id_stays_home(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.default_reply = Reply.text("ok")
    client = await start_server(workspace, llm_options(fake_llm, "openai"))
    first, second = await new_session(client, workspace), await new_session(client, workspace)
    for sid in (first, second, first):
        assert await prompt(client, sid, "hello") == "end_turn"
    keys = [r.headers.get("x-session-affinity") for r in fake_llm.chat_requests()]
    assert keys[0] and keys[0] == keys[2] and keys[1] and keys[1] != keys[0]
    assert first not in str(keys) and first.removeprefix("sess_") not in str(keys)
    assert keys[0] != hashlib.sha256(first.encode()).hexdigest()[:32]  # not a plain hash of the id either


async def test_the_affinity_header_can_be_renamed_or_switched_off(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.default_reply = Reply.text("ok")
    client = await start_server(workspace, llm_options(fake_llm, "openai", sessionHeader="x-smg-routing-key"))
    assert await prompt(client, await new_session(client, workspace), "hello") == "end_turn"
    last = fake_llm.chat_requests()[-1].headers
    assert last.get("x-smg-routing-key") and "x-session-affinity" not in last
    other = await start_server(workspace, llm_options(fake_llm, "openai", sessionHeader=""))
    assert await prompt(other, await new_session(other, workspace), "hello") == "end_turn"
    assert not {"x-session-affinity", "x-smg-routing-key"} & set(fake_llm.chat_requests()[-1].headers)


@pytest.mark.parametrize(("setting", "sent"), [(True, 0), (False, None)])
async def test_the_users_turn_carries_vllms_first_priority_when_asked(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, setting: bool, sent: int | None
) -> None:
    fake_llm.default_reply = Reply.text("ok")
    client = await start_server(workspace, llm_options(fake_llm, "openai", priority=setting))
    assert await prompt(client, await new_session(client, workspace), "hello") == "end_turn"
    assert fake_llm.chat_requests()[-1].json.get("priority") == sent


async def test_a_server_behind_a_private_ca_is_trusted_with_ca_file_and_refused_without(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    ca = make_ca(tmp_path / "ca")
    with FakeLLMServer() as tls:
        tls.stop()
        tls.tls = ca.server_context()
        tls.start()
        tls.default_reply = Reply.text("over TLS")
        assert tls.url.startswith("https://")
        refused = await start_server(workspace, llm_options(tls, "openai"))
        with pytest.raises(RpcError) as caught:
            await refused.request("agent/session/prompt", prompt_params(await new_session(refused, workspace), "hi"))
        assert "certificate" in str(caught.value.message).lower()
        for options, env in (
            (llm_options(tls, "openai", caFile=str(ca.ca_file)), {}),
            (llm_options(tls, "openai"), {"SSL_CERT_FILE": str(ca.ca_file)}),
        ):
            client = await start_server(workspace, options, env=env)
            sid = await new_session(client, workspace)
            assert await prompt(client, sid, "hi") == "end_turn"
            assert client.text(sid) == "over TLS"


RATE_LIMIT = {"error": {"message": "Rate limit reached for team-a: 2 requests per minute", "type": "rate_limit"}}


async def test_a_429_with_a_short_retry_after_is_shown_and_waited_out(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(Reply(status=429, error_body=RATE_LIMIT, headers={"Retry-After": "1"}), Reply.text("done"))
    client = await start_server(workspace, llm_options(fake_llm, "openai"))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "hello") == "end_turn"
    assert client.text(sid) == "done"
    said = client.text(sid, kind="agent_thought_chunk")
    assert "rate limiting (429: Rate limit reached for team-a: 2 requests per minute)" in said
    assert "trying again in 1 s" in said
    assert len(fake_llm.chat_requests()) == 2


@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        (Reply(status=429, error_body=RATE_LIMIT), "429 (rate limited): Rate limit reached for team-a"),
        (
            Reply(status=429, error_body=RATE_LIMIT, headers={"Retry-After": "3600"}),
            "asking to wait 3600 s: Rate limit reached",
        ),
        (  # LiteLLM's answer for a key whose budget is spent
            Reply(status=400, error_body={"error": {"message": "Budget has been exceeded! Current cost: 1.02, "
                                                               "Max budget: 1.0", "type": "budget_exceeded"}}),
            "Budget has been exceeded! Current cost: 1.02, Max budget: 1.0",
        ),
    ],
)  # fmt: skip
async def test_a_limit_without_a_short_wait_is_shown_plainly_and_never_retried(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, reply: Reply, shown: str
) -> None:
    fake_llm.script(reply, Reply.text("should not be asked"))
    client = await start_server(workspace, llm_options(fake_llm, "openai"))
    sid = await new_session(client, workspace)
    with pytest.raises(RpcError) as caught:
        await client.request("agent/session/prompt", prompt_params(sid, "hello"))
    assert shown in str(caught.value.message)
    assert len(fake_llm.chat_requests()) == 1


@pytest.mark.parametrize(
    ("slots", "saved"), [(None, True), ([{"id": i, "is_processing": i > 0} for i in range(4)], False)]
)
async def test_slots_are_saved_only_where_the_slot_is_the_sessions_own(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path, slots: Any, saved: bool
) -> None:
    fake_llm.props = {"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1, "model_path": "/m/a.gguf"}
    fake_llm.slot_files = {}
    fake_llm.slot_list = slots
    fake_llm.default_reply = Reply.text("ok")
    options = llm_options(fake_llm, "openai", slotSavePath=str(tmp_path / "slots"))
    client = await start_server(workspace, options)
    first, second = await new_session(client, workspace), await new_session(client, workspace)
    assert await prompt(client, first, "one") == "end_turn"
    assert await prompt(client, second, "two") == "end_turn"  # takes the slot: the first would be saved now
    saves = [r for r in fake_llm.requests if r.path.startswith("/slots/") and "action=save" in r.query]
    assert bool(saves) is saved
