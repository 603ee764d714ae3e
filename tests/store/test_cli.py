"""`agent-server sessions ...` handlers, driven through argparse as the real CLI does."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from agent_server.config import Settings
from agent_server.messages import Message, ToolCall
from agent_server.store import Store
from agent_server.store.cli import register


def _run(argv: list[str], settings: Settings) -> int:
    parser = argparse.ArgumentParser(prog="agent-server")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    args.settings = settings
    code: int = args.handler(args)
    return code


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    s = Settings()
    s.store.path = str(tmp_path / "cli.db")
    with Store(s.database_path()) as store:
        sid = store.create_session("/proj", session_id="abc123").id
        store.append_message(sid, Message("user", "Explain the build"))
        store.append_message(sid, Message("assistant", "", tool_calls=[ToolCall("c1", "read_file", {"path": "x"})]))
        store.append_message(sid, Message("assistant", "It uses make."))
        store.create_session("/elsewhere", session_id="zzz")
    return s


def test_list_plain_and_json(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["sessions", "list"], settings) == 0
    out = capsys.readouterr().out
    assert "abc123" in out and "Explain the build" in out and "zzz" in out
    assert _run(["sessions", "list", "--cwd", "/proj", "--json"], settings) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["sessionId"] for d in data] == ["abc123"]
    assert data[0]["title"] == "Explain the build" and data[0]["messages"] == 3


def test_show(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["sessions", "show", "abc123"], settings) == 0
    out = capsys.readouterr().out
    assert "user: Explain the build" in out and "read_file" in out and "It uses make." in out
    assert _run(["sessions", "show", "abc123", "--json"], settings) == 0
    assert len(json.loads(capsys.readouterr().out)["transcript"]) == 3


def test_unknown_session_is_exit_1_with_message(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["sessions", "show", "nope"], settings) == 1
    assert "unknown session: nope" in capsys.readouterr().err
    assert _run(["sessions", "delete", "nope"], settings) == 1


def test_delete(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["sessions", "delete", "abc123"], settings) == 0
    assert _run(["sessions", "list", "--json"], settings) == 0
    capsys.readouterr()
    _run(["sessions", "list", "--json"], settings)
    assert [d["sessionId"] for d in json.loads(capsys.readouterr().out)] == ["zzz"]
