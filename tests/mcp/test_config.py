"""`mcpServers` entries and model-safe names: what users write, and what models are offered."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_server.errors import ConfigError
from agent_server.tools.mcp import exposed_name, parse_server


def test_stdio_entry_with_relative_cwd_and_env_expansion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GH_TOKEN", "s3cret")
    cfg = parse_server(
        "github",
        {"command": "npx", "args": ["-y", "server", 3], "env": {"TOKEN": "${GH_TOKEN}"}, "cwd": "tools"},
        tmp_path,
    )
    assert (cfg.transport, cfg.command, cfg.args) == ("stdio", "npx", ["-y", "server", "3"])
    assert cfg.env == {"TOKEN": "s3cret"}
    assert cfg.cwd == tmp_path / "tools"


def test_http_and_sse_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIRA_TOKEN", "abc")
    cfg = parse_server("jira", {"url": "https://x/mcp", "headers": {"Authorization": "Bearer ${env:JIRA_TOKEN}"}})
    assert (cfg.transport, cfg.headers) == ("http", {"Authorization": "Bearer abc"})
    assert parse_server("old", {"type": "sse", "url": "http://x/sse"}).transport == "sse"


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ({"args": ["x"]}, "mcp_servers.bad"),
        ({"command": "x", "args": "not a list"}, "mcp_servers.bad.args"),
        ({"command": "x", "env": ["A=1"]}, "mcp_servers.bad.env"),
        ({"url": "ftp://x"}, "mcp_servers.bad.url"),
    ],
)
def test_bad_entries_name_their_key(spec: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_server("bad", spec)  # type: ignore[arg-type]
    assert err.value.key == key


def test_exposed_names_are_safe_short_and_unique() -> None:
    assert exposed_name("my.server", "tool.with.dots") == "my_server__tool_with_dots"
    long_name = exposed_name("a-very-long-server-name-for-testing", "and_an_even_longer_tool_name_that_goes_on_and_on")
    assert len(long_name) <= 64
    other = exposed_name("a-very-long-server-name-for-testing", "and_an_even_longer_tool_name_that_goes_on_and_on_2")
    assert other != long_name
    taken = {"x__a_b"}
    assert exposed_name("x", "a.b", taken) != "x__a_b"
    for name in (long_name, other, exposed_name("ünï", "tool/ü")):
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name)
