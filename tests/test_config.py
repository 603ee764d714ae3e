"""Settings layering and validation: later layers win, bad values name their key."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_server import config, config_layers
from agent_server.errors import ConfigError


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_each_layer_overrides_the_one_below(tmp_path: Path) -> None:
    user = write(
        tmp_path / "user.toml",
        '[llm]\nmodel = "user"\nbase_url = "http://user"\ntemperature = 0.1\n[agent]\nmax_rounds = 7\n',
    )
    ws = tmp_path / "ws"
    write(ws / ".agent-server.toml", '[llm]\nmodel = "workspace"\nkeep_alive = "1h"\n')
    env = {"AGENT_SERVER_LLM__MODEL": "env", "AGENT_SERVER_LLM_PROVIDER": "openai"}
    s = config_layers.load(
        ws, client_options={"llm": {"model": "client", "baseUrl": "http://client"}}, environ=env, user_file=user
    )
    assert (s.llm.model, s.llm.base_url, s.llm.provider, s.llm.temperature) == (
        "client",
        "http://client",
        "openai",
        0.1,
    )
    assert s.agent.max_rounds == 7
    s = config_layers.load(
        ws,
        client_options={"llm": {"model": "client"}},
        cli_overrides={"llm": {"model": "cli"}},
        environ=env,
        user_file=user,
    )
    assert s.llm.model == "cli" and s.llm.keep_alive == "1h" and s.llm.base_url == "http://user"


def test_defaults_when_nothing_is_configured(tmp_path: Path) -> None:
    s = config_layers.load(tmp_path, environ={}, user_file=tmp_path / "missing.toml")
    assert s.llm.provider is None and s.llm.base_url is None  # auto-detection
    assert s.agent.max_rounds == 20 and s.tools.result_limit == 6000 and s.context.compact_at == 0.7


@pytest.mark.parametrize(
    ("layer", "key"),
    [
        ({"llm": {"provider": "claude"}}, "llm.provider"),
        ({"agent": {"maxRounds": "many"}}, "agent.max_rounds"),
        ({"context": {"compactAt": 1.5}}, "context.compact_at"),
        ({"tools": {"policy": {"write_file": "sometimes"}}}, "tools.policy.write_file"),
        ({"llm": {"modle": "typo"}}, "llm.modle"),
        ({"mcpServers": {"gh": {"args": []}}}, "mcp_servers"),
    ],
)
def test_bad_values_name_the_key(layer: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as err:
        config.build(layer)
    assert err.value.key == key
    assert key in str(err.value)


def test_bad_toml_names_the_file_and_the_rest_loads(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    bad = write(tmp_path / "ws" / ".agent-server.toml", "[llm\nmodel=")
    s = config_layers.load(
        bad.parent, client_options={"agent": {"maxRounds": 4}}, environ={}, user_file=tmp_path / "n.toml"
    )
    assert s.agent.max_rounds == 4
    assert any(str(bad) in r.getMessage() for r in caplog.records)


def test_env_json_values_and_mcp_servers_merge(tmp_path: Path) -> None:
    user = write(tmp_path / "u.toml", '[mcpServers.a]\ncommand = "a"\n')
    env = {"AGENT_SERVER_TOOLS__RULES": '[{"tool": "run_command", "pattern": "pytest*", "policy": "allow"}]'}
    s = config_layers.load(None, client_options={"mcpServers": {"b": {"url": "http://b"}}}, environ=env, user_file=user)
    assert s.tools.rules[0].pattern == "pytest*"
    assert set(s.mcp_servers) == {"a", "b"}


def test_every_setting_is_documented() -> None:
    from pydantic import BaseModel

    def keys(model: type[BaseModel], prefix: str = "") -> list[str]:
        out: list[str] = []
        for name, field in model.model_fields.items():
            ann = field.annotation
            if isinstance(ann, type) and issubclass(ann, BaseModel):
                out += keys(ann, f"{prefix}{name}.")
            else:
                out.append(prefix + name)
        return out

    doc = (Path(__file__).parents[1] / "docs" / "configuration.md").read_text()
    missing = [k for k in keys(config.Settings) if f"`{k}`" not in doc]
    assert missing == [], f"docs/configuration.md does not describe: {missing}"
