"""Command files follow the inside-the-workspace rule of rules files (issue 38): a file or folder linked out of the
workspace, a hard link, or a file the user's deny rules cover is not read; only so many files per folder are."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_server.context_sources import commands
from agent_server.context_sources.commands import discover_commands


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_links_out_of_the_workspace_are_not_read_and_say_so(tmp_path: Path) -> None:
    ws, outside, user = tmp_path / "ws", tmp_path / "outside", tmp_path / "user"
    write(tmp_path / "dotfiles", "mine.md", "my command")
    user.mkdir()
    (user / "mine.md").symlink_to(tmp_path / "dotfiles" / "mine.md")  # the user's own folder may link anywhere
    write(outside, "secret.md", "OUTSIDE")
    write(outside, "cmds/a.md", "OUTSIDE A")
    write(outside, "prompts/p.prompt.md", "OUTSIDE P")
    write(ws, ".claude/commands/ok.md", "fine")
    write(ws, "shared/inside.md", "linked, but inside")
    (ws / ".claude/commands/leak.md").symlink_to(outside / "secret.md")
    (ws / ".claude/commands/inside.md").symlink_to(ws / "shared/inside.md")
    (ws / ".agent-server").mkdir()
    (ws / ".agent-server/commands").symlink_to(outside / "cmds")  # the folder itself
    (ws / ".github").symlink_to(outside)  # a folder on the way: .github/prompts is outside
    os.link(outside / "secret.md", ws / ".claude/commands/hard.md")
    found, problems = discover_commands(ws, user)
    assert {n: c.body for n, c in found.items()} == {
        "mine": "my command",
        "ok": "fine",
        "inside": "linked, but inside",
    }
    said = "\n".join(problems)
    assert ".claude/commands/leak.md: a link out of the workspace" in said
    assert ".claude/commands/hard.md: a hard link" in said
    assert ".agent-server/commands: a link out of the workspace" in said
    assert ".github/prompts: a link out of the workspace" in said


def test_a_file_the_deny_rules_cover_is_not_read(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, ".env", "TOKEN=1")
    (ws / ".claude/commands").mkdir(parents=True)
    (ws / ".claude/commands/env.md").symlink_to("../../.env")
    refused: list[Path] = []

    def refuse(path: Path) -> str | None:
        refused.append(path)
        return "a deny rule matches" if os.path.realpath(path).endswith(".env") else None

    found, problems = discover_commands(ws, tmp_path / "user", refuse)
    assert found == {} and problems == [".claude/commands/env.md: a deny rule matches; not read"]
    assert refused == [ws / ".claude/commands/env.md"]


def test_only_so_many_files_per_folder_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    for i in range(12):
        write(ws, f".claude/commands/c{i:02d}.md", f"command {i}")
    monkeypatch.setattr(commands, "MAX_FILES", 10)  # the real limit is 500; the rule is the same
    found, problems = discover_commands(ws, tmp_path / "user")
    assert len(found) == 10 and "c11" not in found
    assert problems == [".claude/commands: 12 files, only the first 10 are read"]
