"""Each layer, and each key, fails alone: the bad key is reported (layer, key, expected form), the rest applies."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_server.config_layers import ConfigIssue, load_layers


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def issue_for(issues: list[ConfigIssue], key: str) -> ConfigIssue:
    found = [i for i in issues if i.key == key]
    assert found, f"no issue for {key}: {[str(i) for i in issues]}"
    return found[0]


def test_a_broken_user_file_drops_only_that_file(tmp_path: Path) -> None:
    user = write(tmp_path / "user.toml", "[[[")
    ws = tmp_path / "ws"
    write(ws / ".agent-server.toml", "[agent]\nmax_rounds = 9\n")
    loaded = load_layers(
        ws,
        client_options={"llm": {"model": "from-editor"}},
        environ={"AGENT_SERVER_LLM__TEMPERATURE": "0.3"},
        user_file=user,
    )
    s = loaded.settings
    assert (s.agent.max_rounds, s.llm.model, s.llm.temperature) == (9, "from-editor", 0.3)
    assert len(loaded.issues) == 1
    issue = loaded.issues[0]
    assert str(user) in issue.source and issue.key == "" and "TOML" in issue.problem


def test_a_bad_environment_variable_is_named_and_the_others_apply(tmp_path: Path) -> None:
    env = {"AGENT_SERVER_AGENT__MAX_ROUNDS": "lots", "AGENT_SERVER_LLM__MODEL": "env-model"}
    loaded = load_layers(None, environ=env, user_file=tmp_path / "none.toml")
    assert loaded.settings.agent.max_rounds == 20  # the default: the bad value is ignored
    assert loaded.settings.llm.model == "env-model"
    issue = issue_for(loaded.issues, "agent.max_rounds")
    assert "AGENT_SERVER_AGENT__MAX_ROUNDS" in issue.source and "integer" in issue.problem and "lots" in issue.problem


def test_a_bad_workspace_file_keeps_the_editor_settings(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws / ".agent-server.toml", "[llm\nmodel = ")
    loaded = load_layers(
        ws, client_options={"llm": {"model": "editor", "temperature": 0.2}}, environ={}, user_file=tmp_path / "u.toml"
    )
    assert (loaded.settings.llm.model, loaded.settings.llm.temperature) == ("editor", 0.2)
    assert [i.source for i in loaded.issues] == [f"workspace file {ws / '.agent-server.toml'}"]


def test_one_bad_key_among_good_ones_in_editor_settings(tmp_path: Path) -> None:
    options = {
        "llm": {"model": "editor-model", "maxTokens": "plenty", "temperature": 0.5},
        "agent": {"maxRounds": 4, "profile": "nonsense"},
        "context": {"keepPairs": 3, "compactAtt": 0.5},
    }
    loaded = load_layers(None, client_options=options, environ={}, user_file=tmp_path / "u.toml")
    s = loaded.settings
    assert (s.llm.model, s.llm.temperature, s.agent.max_rounds, s.context.keep_pairs) == ("editor-model", 0.5, 4, 3)
    assert (s.llm.max_tokens, s.agent.profile) == (None, "chat")
    assert {i.key for i in loaded.issues} == {"llm.max_tokens", "agent.profile", "context.compact_att"}
    assert issue_for(loaded.issues, "context.compact_att").problem == "unknown setting"
    assert "'chat'" in issue_for(loaded.issues, "agent.profile").problem  # the expected form is named


def test_a_bad_key_falls_back_to_the_layer_below_not_the_default(tmp_path: Path) -> None:
    user = write(tmp_path / "u.toml", "[agent]\nmax_rounds = 7\n")
    loaded = load_layers(None, environ={"AGENT_SERVER_AGENT__MAX_ROUNDS": "-3"}, user_file=user)
    assert loaded.settings.agent.max_rounds == 7
    assert "greater than or equal to 1" in issue_for(loaded.issues, "agent.max_rounds").problem


@pytest.mark.parametrize(
    ("section", "key", "value"),
    [
        ("llm", "context_length", 10),
        ("llm", "timeout_s", -1),
        ("llm", "connect_timeout_s", 0),
        ("tools", "command_timeout_s", -5),
        ("tools", "result_limit", 10),
        ("context", "compact_at", 1.5),
        ("llm", "retries", 1000),
    ],
)
def test_absurd_values_are_reported(tmp_path: Path, section: str, key: str, value: object) -> None:
    loaded = load_layers(None, client_options={section: {key: value}}, environ={}, user_file=tmp_path / "u.toml")
    issue = issue_for(loaded.issues, f"{section}.{key}")
    assert repr(value) in issue.problem
    assert getattr(getattr(loaded.settings, section), key) != value


def test_unknown_tool_names_get_a_did_you_mean_and_stay(tmp_path: Path) -> None:
    user = write(
        tmp_path / "u.toml",
        '[tools.policy]\nwrite_fiel = "deny"\nread_file = "ask"\n"github__*" = "allow"\n'
        '[[tools.rules]]\ntool = "run_comand"\npolicy = "deny"\n[[tools.rules]]\ntool = "run_command"\npolicy = "deny"\n',
    )
    loaded = load_layers(None, environ={}, user_file=user)
    s = loaded.settings
    # Kept: a deny for a tool that arrives later (or is spelt wrong) must never turn into an allow.
    assert s.tools.policy == {"write_fiel": "deny", "read_file": "ask", "github__*": "allow"}
    assert [r.tool for r in s.tools.rules] == ["run_comand", "run_command"]
    issue = issue_for(loaded.issues, "tools.policy.write_fiel")
    assert "did you mean 'write_file'" in issue.problem and "matches no tool" in str(issue)
    assert "did you mean 'run_command'" in issue_for(loaded.issues, "tools.rules.0.tool").problem
    assert len(loaded.issues) == 2  # globs and MCP names (github__*) are not judged


def test_every_builtin_tool_name_is_accepted_in_rules(tmp_path: Path) -> None:
    """A rule naming any real built-in tool (read_output included) loads without a 'matches no tool' issue."""
    from agent_server.tools.builtin import builtin_tools
    from agent_server.tools.spill import read_output_tool

    names = sorted({tool.name for tool in builtin_tools()} | {read_output_tool().name})
    policy = "".join(f'{name} = "ask"\n' for name in names)
    loaded = load_layers(None, environ={}, user_file=write(tmp_path / "u.toml", f"[tools.policy]\n{policy}"))
    assert loaded.issues == []
    assert set(loaded.settings.tools.policy) == set(names)


def test_a_bad_mcp_server_entry_drops_only_that_server(tmp_path: Path) -> None:
    user = write(tmp_path / "u.toml", '[mcpServers.good]\ncommand = "echo"\n[mcpServers.bad]\nargs = ["x"]\n')
    loaded = load_layers(None, environ={}, user_file=user)
    assert set(loaded.settings.mcp_servers) == {"good"}
    assert "command" in issue_for(loaded.issues, "mcp_servers.bad").problem


def test_a_bad_list_item_drops_that_item(tmp_path: Path) -> None:
    options = {
        "tools": {
            "rules": [
                {"tool": "run_command", "policy": "deny", "pattern": "rm *"},
                {"tool": "run_command", "policy": "sometimes"},
            ]
        }
    }
    loaded = load_layers(None, client_options=options, environ={}, user_file=tmp_path / "u.toml")
    assert [(r.policy, r.pattern) for r in loaded.settings.tools.rules] == [("deny", "rm *")]
    assert [i.key for i in loaded.issues] == ["tools.rules.1.policy"]


def test_a_section_of_the_wrong_type_is_one_issue(tmp_path: Path) -> None:
    loaded = load_layers(
        None, client_options={"llm": "qwen3", "agent": {"maxRounds": 3}}, environ={}, user_file=tmp_path / "u.toml"
    )
    assert loaded.settings.agent.max_rounds == 3
    assert [i.key for i in loaded.issues] == ["llm"]


def test_issue_text_names_layer_key_and_expected_form() -> None:
    text = str(ConfigIssue("environment (AGENT_SERVER_X)", "agent.max_rounds", "Input should be a valid integer"))
    assert text == "environment (AGENT_SERVER_X): agent.max_rounds: Input should be a valid integer (ignored)"


def test_a_log_file_that_cannot_be_opened_is_reported_and_logging_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import logging

    from agent_server import logging_setup

    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    try:
        logging_setup.setup("WARNING", str(tmp_path / "missing-dir" / "sub" / "agent.log"))
        logging.getLogger("agent_server.test").warning("still logging")
    finally:
        root.handlers[:] = saved
        root.setLevel(level)
    err = capsys.readouterr().err
    assert "log.file: cannot open" in err and "missing-dir" in err and "still logging" in err


def test_a_base_url_without_a_scheme_is_reported(tmp_path: Path) -> None:
    options = {
        "llm": {
            "baseUrl": "localhost:11434",
            "model": "m",
            "fallbacks": [{"model": "x", "baseUrl": "ftp://x"}, {"model": "y", "baseUrl": "http://127.0.0.1:1234/v1"}],
        }
    }
    loaded = load_layers(None, client_options=options, environ={}, user_file=tmp_path / "u.toml")
    s = loaded.settings
    assert s.llm.base_url is None and s.llm.model == "m"
    assert [f.model for f in s.llm.fallbacks] == ["y"]
    assert "http(s) URL" in issue_for(loaded.issues, "llm.base_url").problem
    assert "ftp://x" in issue_for(loaded.issues, "llm.fallbacks.0.base_url").problem
