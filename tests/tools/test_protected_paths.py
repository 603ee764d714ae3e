"""Writes that make tools run programs always ask, whatever allows them (issue 23): file tools and commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_server.config import ToolRule, ToolsConfig
from agent_server.tools.builtin import builtin_tools
from agent_server.tools.permissions import InMemoryDecisionStore, PermissionPolicy
from agent_server.tools.protected_paths import protected_path

TOOLS = {t.name: t for t in builtin_tools()}


def _allow_everything() -> PermissionPolicy:
    rules = [ToolRule(tool=name, policy="allow") for name in ("write_file", "edit_file", "run_command")]
    return PermissionPolicy(ToolsConfig(rules=rules), InMemoryDecisionStore())


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "settings").symlink_to(".vscode")
    (tmp_path / "hooks").symlink_to(".git/hooks")
    return tmp_path


@pytest.mark.parametrize(
    "path",
    [".git/config", ".GIT/config", "sub/.git/hooks/pre-commit", ".git", ".gitattributes", "sub/.gitattributes",
     ".gitmodules", ".vscode/tasks.json", "settings/tasks.json", "hooks/pre-push", ".envrc", ".agent-server.toml",
     ".agent-server/agents/plan.md", ".agent-server/commands/x.md", ".idea/workspace.xml", "team.code-workspace",
     "./.git/../.git/config", ".devcontainer/devcontainer.json", ".nvim.lua", ".agents/skills/pdf/SKILL.md",
     ".claude/skills/x/SKILL.md"],
)  # fmt: skip
def test_writes_to_program_settings_ask_under_a_blanket_allow(ws: Path, path: str) -> None:
    policy = _allow_everything()
    assert policy.decide(TOOLS["write_file"], {"path": path, "content": "x"}, ws) == "ask"
    assert policy.decide(TOOLS["edit_file"], {"path": path, "old_text": "a", "new_text": "b"}, ws) == "ask"
    assert any("configure" in w for w in policy.why(TOOLS["write_file"], {"path": path, "content": "x"}, ws))
    assert policy.decide(TOOLS["read_file"], {"path": path}, ws) == "allow"  # reading them is fine


@pytest.mark.parametrize("path", ["src/a.py", ".gitignore", "git/config", "docs/.github.md", "vscode/tasks.json"])
def test_ordinary_files_stay_allowed(ws: Path, path: str) -> None:
    assert _allow_everything().decide(TOOLS["write_file"], {"path": path, "content": "x"}, ws) == "allow"
    assert protected_path(ws, path) is None


@pytest.mark.parametrize(
    "command",
    ["echo x > .git/config", "cat a >> sub/.gitattributes", "cp evil .git/config", "tee .envrc < a",
     "mv a .vscode/settings.json", "sed -i s/a/b/ .git/config", "ln -sf /tmp/x .git/hooks/pre-commit",
     "git config core.fsmonitor 'touch pwned'", "git config --global alias.x '!sh'", "cd .git && echo x > config",
     "echo x > settings/tasks.json", "touch .agent-server.toml", "mkdir -p .husky"],
)  # fmt: skip
def test_commands_that_write_program_settings_ask_under_a_blanket_allow(ws: Path, command: str) -> None:
    policy = _allow_everything()
    assert policy.decide(TOOLS["run_command"], {"command": command}, ws) == "ask"
    assert policy.why(TOOLS["run_command"], {"command": command}, ws)


@pytest.mark.parametrize("command", ["git config user.name", "git config --get core.editor", "cat .git/config",
                                     "echo x > notes.txt", "cp a b"])  # fmt: skip
def test_commands_that_only_read_them_stay_allowed(ws: Path, command: str) -> None:
    assert _allow_everything().decide(TOOLS["run_command"], {"command": command}, ws) == "allow"


def test_a_path_longer_than_any_real_one_is_asked_about_without_resolving_it(ws: Path) -> None:
    policy = _allow_everything()
    path = "a/" * 50_000 + "x.py"
    assert protected_path(ws, path) is not None
    assert policy.decide(TOOLS["write_file"], {"path": path, "content": "x"}, ws) == "ask"
