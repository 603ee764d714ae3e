"""A team's shared gateway for real (issue 40): LiteLLM's proxy from PyPI in front of the real llama.cpp server
(SmolLM2), with a key of the team's, a header it requires, a rate limit that trips and a fallback model
(tests/real_llm/litellm_gateway.py). Through the real agent-server: turns complete (answered by the fallback, the
primary replica being down), the gateway's 429 is shown and waited out, the header arrives, and the key is in no log.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import new_session
from tests.lsp_client import LspClient
from tests.real_llm.litellm_gateway import KEY, USER, Gateway, install, installed, start_gateway
from tests.real_llm.llama import LlamaServer
from tests.real_llm.test_real_llm import STOP_REASONS, prompt

WINDOW_S = 5  # LiteLLM's rate-limit window here (60 s by default): the 429's retry-after


@pytest.fixture(scope="module")
def gateway(
    llama: LlamaServer, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Gateway]:
    exe = installed()
    if exe is None:
        asked = "real_llm" in (request.config.getoption("markexpr", "") or "")
        if not asked and os.environ.get("CI", "").lower() not in ("1", "true", "yes"):
            pytest.skip("LiteLLM's proxy is not installed: run `pytest -m real_llm` (installs it into its own venv)")
        try:
            exe = install()
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            pytest.fail(f"installing litellm[proxy] failed: {exc}")
    gw = start_gateway(exe, tmp_path_factory.mktemp("litellm"), llama.url, llama.model, rpm=1, window_s=WINDOW_S)
    yield gw
    gw.stop()


async def test_turns_through_litellm_with_a_key_a_required_header_a_rate_limit_and_a_fallback(
    gateway: Gateway, workspace: Path, tmp_path: Path
) -> None:
    log_file = tmp_path / "agent.log"
    client = await LspClient.start(
        args=["--log-level", "DEBUG", "--log-file", str(log_file)],
        env={"AGENT_SERVER_STORE__PATH": str(tmp_path / "s.db"), "AGENT_SERVER_INDEX__ENABLED": "false"},
    )
    llm = {"provider": "openai", "baseUrl": gateway.url, "model": "team-coder", "apiKey": KEY,
           "headers": {"X-Team-User": USER}, "temperature": 0, "maxTokens": 16, "toolMode": "prompt"}  # fmt: skip
    try:
        await client.initialize(workspace, {"llm": llm, "agent": {"mode": "ask"}})
        sid = await new_session(client, workspace)
        # LiteLLM counts requests in windows of the wall clock: two quick turns can fall on either side of a window's
        # end (2 runs of 4 here), so turns go on, a few at most, until the limit has tripped once.
        stops = []
        for word in ("hello", "yes", "goodbye", "thanks", "fine"):
            stops.append(await prompt(client, sid, f"Say {word} in one word."))
            if len(stops) >= 3 and "(429: " in client.text(sid, kind="agent_thought_chunk"):
                break
    finally:
        await client.close()
    assert set(stops) <= STOP_REASONS and "cancelled" not in stops, stops
    answered = "".join(u["content"]["text"] for u in client.updates(sid) if u["sessionUpdate"] == "agent_message_chunk")
    assert answered.strip()  # the fallback (the real SmolLM2) answered: the primary replica is down
    waited = client.text(sid, kind="agent_thought_chunk")
    assert "the LLM server is rate limiting (429: Rate limit exceeded" in waited, waited
    assert f"trying again in {WINDOW_S} s" in waited
    seen = gateway.seen()
    chats = [s for s in seen if s["path"].endswith("/chat/completions")]
    assert len(chats) >= 4 and all(s["user"] == USER and s["key_end"] == KEY[-4:] for s in chats), seen
    logged = log_file.read_text() + await client.stderr_text()
    assert KEY not in logged and KEY[7:] not in logged
