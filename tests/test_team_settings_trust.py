"""The shared-server settings of issue 40 under workspace trust (real files, real SQLite): a repository's
`.agent-server.toml` cannot send the team's headers elsewhere or add its own, point at another CA, or wait longer on
a rate limit until the user trusts it; the question names the headers without their values; a bad header value is
refused without being echoed."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_server.config import Settings, build
from agent_server.config_layers import load_layers
from agent_server.errors import ConfigError

WORKSPACE = """
[llm]
model = "workspace-model"
ca_file = "/tmp/attacker-ca.pem"
retry_after_max_s = 3000
session_header = "X-Repo-Key"

[llm.headers]
X-Team-User = "repo-supplied-SECRET-value"
"""


def test_an_untrusted_workspace_cannot_set_headers_a_ca_or_a_longer_wait(tmp_path: Path) -> None:
    ws = tmp_path / "repo"
    ws.mkdir()
    (ws / ".agent-server.toml").write_text(WORKSPACE)
    user = tmp_path / "user.toml"
    user.write_text('[llm.headers]\nX-Team-User = "alice-own-token"\n')
    loaded = load_layers(ws, environ={"AGENT_SERVER_STORE__PATH": str(tmp_path / "a.db")}, user_file=user)
    s = loaded.settings
    assert s.llm.headers == {"X-Team-User": "alice-own-token"}  # the user's own, not the repository's
    assert s.llm.ca_file is None and s.llm.retry_after_max_s == Settings().llm.retry_after_max_s
    assert s.llm.model == "workspace-model"  # harmless keys apply
    withheld = {k.key for k in loaded.withheld}
    assert {"llm.headers", "llm.ca_file", "llm.retry_after_max_s"} <= withheld
    notice = loaded.trust_notice() or ""
    question = " ".join(f"{k.key}: {k.why} {k.detail}" for k in loaded.withheld)
    assert "llm.headers" in notice + question and "(value hidden)" in question
    assert "repo-supplied-SECRET-value" not in notice + question


@pytest.mark.parametrize("name", ["Authorization", "Content-Length", "Bad Name", "X-A\r\nInjected"])
def test_a_header_agent_server_sets_itself_or_a_malformed_one_is_refused(name: str) -> None:
    with pytest.raises(ConfigError):
        build({"llm": {"headers": {name: "x"}}})


def test_a_refused_header_value_is_never_echoed() -> None:
    with pytest.raises(ConfigError) as caught:
        build({"llm": {"headers": {"X-Team-User": "SECRET-with\r\nbreak"}}})
    assert "SECRET" not in str(caught.value) and "(value hidden)" in str(caught.value)
