"""The message trace (wire_trace.py) keeps a message's shape and drops what must not leave the machine."""

from __future__ import annotations

import json
import logging

import pytest

from agent_server import wire_trace

MESSAGE = {
    "jsonrpc": "2.0",
    "id": 4,
    "method": "session/new",
    "params": {
        "cwd": "/work/project",
        "mcpServers": [
            {"name": "gh", "command": "gh-mcp", "args": [], "env": [{"name": "GH_TOKEN", "value": "ghp_abcdef123456"}]},
            {"type": "http", "name": "api", "url": "http://x", "headers": [{"name": "X-Key", "value": "k-987654321"}]},
        ],
        "settings": {"llm": {"apiKey": "sk-123456789"}, "mcp_servers": {"a": {"env": {"ANY_NAME": "hidden-value"}}}},
    },
}


def test_credentials_are_masked_whatever_their_name() -> None:
    shown = json.dumps(wire_trace.redact(MESSAGE))
    for secret in ("ghp_abcdef123456", "k-987654321", "sk-123456789", "hidden-value"):
        assert secret not in shown
    assert '"GH_TOKEN"' in shown and '"/work/project"' in shown and '"gh-mcp"' in shown  # the shape stays


def test_texts_are_their_length_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    update = {"content": {"type": "text", "text": "def secret(): pass\n"}, "newText": "abc", "output": "ok\n"}
    assert wire_trace.redact(update) == {
        "content": {"type": "text", "text": "<19 chars>"},
        "newText": "<3 chars>",
        "output": "<3 chars>",
    }
    monkeypatch.setattr(wire_trace, "show_content", True)
    assert wire_trace.redact(update) == update
    assert "sk-123456789" not in json.dumps(wire_trace.redact(MESSAGE))  # --log-content keeps keys masked


def test_only_at_debug_and_any_input(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="agent_server.trace"):
        wire_trace.trace("acp", "client->agent", b'{"jsonrpc":"2.0","method":"x"}')
    assert not caplog.records
    with caplog.at_level(logging.DEBUG, logger="agent_server.trace"):
        wire_trace.trace("acp", "client->agent", b"not json at all")
        wire_trace.trace("lsp", "server->client", MESSAGE)
    assert caplog.records[0].getMessage() == "acp client->agent (not JSON, 15 bytes)"
    assert caplog.records[1].getMessage().startswith('lsp server->client {"jsonrpc":"2.0","id":4')


def test_command_lines_are_their_length_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    token = "Authorization: Bearer tok_live_5f3a9"
    asked = {
        "method": "session/request_permission",
        "params": {
            "toolCall": {
                "title": f"Run `curl -H '{token}' https://api`",
                "kind": "execute",
                "rawInput": {"command": f"curl -H '{token}' https://api", "cwd": "sub", "timeout_s": 30},
            }
        },
    }
    terminal = {"method": "terminal/create", "params": {"command": "/bin/bash", "args": ["-c", f"curl -H '{token}'"]}}
    llm = {"tool_calls": [{"function": {"name": "run_command", "arguments": f'{{"command": "{token}"}}'}}]}
    for message in (asked, terminal, llm):
        shown = json.dumps(wire_trace.redact(message))
        assert "tok_live_5f3a9" not in shown and "curl" not in shown, shown
    shown = json.dumps(wire_trace.redact(asked))
    assert '"cwd": "sub"' in shown and '"kind": "execute"' in shown and '"timeout_s": 30' in shown  # the shape stays
    monkeypatch.setattr(wire_trace, "show_content", True)
    assert "curl" in json.dumps(wire_trace.redact(asked))
