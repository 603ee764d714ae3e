"""Loading the settings layers so that each layer, and each key, fails alone.

A layer that cannot be read (a TOML syntax error) is skipped; a key with a bad value, an unknown key or an unknown
tool name is dropped from its layer; everything else still applies. Each problem becomes a `ConfigIssue` naming
the layer, the dotted key and the expected form, for the editor (window/showMessage), the terminal and `doctor`.
The workspace file also goes through workspace trust (`trust.py`): its risky keys apply only when trusted.
"""

from __future__ import annotations

import asyncio
import difflib
import logging
import tomllib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from . import config as config_mod
from . import trust
from .config import Settings, StoreConfig
from .errors import AgentServerError, SandboxError
from .tools.names import BUILTIN_TOOL_NAMES
from .tools.sandbox import read_regular

log = logging.getLogger(__name__)

WORKSPACE_FILE = ".agent-server.toml"
_MAX_DROPS = 200  # a layer with more bad keys than this is dropped whole


@dataclass(frozen=True)
class ConfigIssue:
    source: str
    """The layer: `user config /path`, `workspace file /path`, `environment`, `editor settings`, ..."""
    key: str
    """Dotted key (`agent.max_rounds`); empty when the whole layer could not be read."""
    problem: str
    """What was wrong and the expected form."""
    outcome: str = "ignored"

    def __str__(self) -> str:
        where = f"{self.source}: {self.key}" if self.key else self.source
        return f"{where}: {self.problem} ({self.outcome})"


@dataclass
class Layer:
    source: str
    data: dict[str, Any]
    names: dict[str, str] = field(default_factory=dict)
    """Dotted key -> where it came from, when that says more than the source (environment variable names)."""


@dataclass
class LoadResult:
    settings: Settings
    issues: list[ConfigIssue]
    workspace: Path | None = None
    config_file: Path | None = None
    """The workspace file, when it exists."""
    config_hash: str | None = None
    withheld: list[trust.RiskyKey] = field(default_factory=list)
    """Risky workspace keys ignored because the workspace is not trusted."""
    verdict: trust.Verdict | None = None
    """The remembered trust answer for this workspace and file content (None: never asked, or the file changed)."""
    trust_db: Path | None = None

    @property
    def needs_trust_question(self) -> bool:
        return bool(self.withheld) and self.verdict is None

    def trust_notice(self) -> str | None:
        if not self.withheld or self.config_file is None or self.workspace is None:
            return None
        return trust.ignored_notice(self.config_file, self.withheld, self.workspace)

    def use_default_store(self, error: Exception) -> None:
        """The configured store cannot be opened (a bad `store.path`): run on the default store, and say so."""
        self.issues.append(ConfigIssue("session store", "store.path", f"{error}; the default store is used"))
        self.settings = self.settings.model_copy(update={"store": StoreConfig()})

    def notices(self) -> list[str]:
        """Everything the user should see: the bad keys, then what waits for trust."""
        out = [str(issue) for issue in self.issues]
        notice = self.trust_notice()
        if notice:
            out.append(notice)
        return out


# --- reading layers --------------------------------------------------------------------------------------


def read_toml_layer(path: Path, source: str, issues: list[ConfigIssue]) -> Layer:
    """A missing file is an empty layer; an unreadable one is reported and skipped."""
    try:
        if not path.is_file():
            return Layer(source, {})
        data = tomllib.loads(read_regular(path, trust.MAX_CONFIG_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, SandboxError) as exc:
        issues.append(ConfigIssue(source, "", f"not read: {exc}; expected a TOML file"))
        return Layer(source, {})
    return Layer(source, config_mod.normalize_keys(data))


def env_layer(environ: dict[str, str] | None) -> Layer:
    names: dict[str, str] = {}
    data = config_mod.from_env(environ, names)
    return Layer("environment", data, names)


def dict_layer(data: dict[str, Any] | None, source: str, issues: list[ConfigIssue]) -> Layer:
    if not data:
        return Layer(source, {})
    if not isinstance(data, dict):
        issues.append(ConfigIssue(source, "", f"expected an object of settings (got {type(data).__name__})"))
        return Layer(source, {})
    return Layer(source, config_mod.normalize_keys(data))


# --- per-key validation ----------------------------------------------------------------------------------


def _known_tools() -> set[str]:
    return set(BUILTIN_TOOL_NAMES)


def _checked_name(name: str) -> bool:
    """Globs and MCP tools (`server__tool`, `mcp.github.*`) cannot be checked before the servers start."""
    return not any(c in name for c in "*?[.") and "__" not in name


def _unknown_tool(name: str, known: set[str]) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else f"; known tools: {', '.join(sorted(known))}"
    return f"unknown tool '{name}'{hint}"


_UNKNOWN_KEPT = "kept: it matches no tool"


def _check_tools(layer: Layer, report: Any) -> None:
    """Report tool names no tool has. They stay: a tool added later must not lose the `deny` a user wrote for it."""
    tools = layer.data.get("tools")
    if not isinstance(tools, dict):
        return
    known: set[str] | None = None
    policy = tools.get("policy")
    if isinstance(policy, dict):
        for name in list(policy):
            if _checked_name(str(name)):
                known = known if known is not None else _known_tools()
                if name not in known:
                    report(f"tools.policy.{name}", _unknown_tool(str(name), known), _UNKNOWN_KEPT)
    rules = tools.get("rules")
    if isinstance(rules, list):
        for i, rule in enumerate(rules):
            name = rule.get("tool") if isinstance(rule, dict) else None
            if isinstance(name, str) and _checked_name(name):
                known = known if known is not None else _known_tools()
                if name not in known:
                    report(f"tools.rules.{i}.tool", _unknown_tool(name, known), _UNKNOWN_KEPT)


def _check_mcp(layer: Layer, report: Any) -> None:
    servers = layer.data.get("mcp_servers")
    if servers is None:
        return
    if not isinstance(servers, dict):
        report("mcp_servers", f"expected an object of servers (got {servers!r})")
        del layer.data["mcp_servers"]
        return
    for name in list(servers):
        spec = servers[name]
        if not isinstance(spec, dict) or not ("command" in spec or "url" in spec):
            report(f"mcp_servers.{name}", "expected {command, args, env, cwd} (stdio) or {url, headers} (HTTP)")
            del servers[name]


def _data_path(data: Any, loc: tuple[int | str, ...]) -> list[int | str]:
    """The part of a pydantic error location that exists in `data` (union branches add names that do not)."""
    path: list[int | str] = []
    node = data
    for part in loc:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            break
        path.append(part)
    return path


def _drop(data: dict[str, Any], path: list[int | str]) -> None:
    node: Any = data
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]


def _expected(err: Any) -> str:
    if err["type"] == "extra_forbidden":
        return "unknown setting"
    if err["type"] == "missing":
        return "required"
    return f"{err['msg']} (got {config_mod.shown_input(err['loc'], err.get('input'))})"


def build_tolerant(layers: list[Layer]) -> tuple[Settings, list[ConfigIssue]]:
    """Merge the layers in order, dropping (and reporting) each key that does not validate on top of the others."""
    issues: list[ConfigIssue] = []
    merged: dict[str, Any] = {}
    for layer in layers:

        def report(key: str, problem: str, outcome: str = "ignored", layer: Layer = layer) -> None:
            source = layer.source
            origin = layer.names.get(key)
            if origin:
                source = f"{source} ({origin})"
            issues.append(ConfigIssue(source, key, problem, outcome))

        _check_mcp(layer, report)
        _check_tools(layer, report)
        data = layer.data
        for _ in range(_MAX_DROPS):
            candidate = config_mod.merge(merged, data)
            try:
                Settings.model_validate(candidate)
            except ValidationError as exc:
                err = exc.errors()[0]
                path = _data_path(data, tuple(err["loc"]))
                if not path:  # not this layer's key (cannot happen when `merged` is valid): drop the layer
                    report("", f"not applied: {_expected(err)}")
                    data = {}
                    break
                key = ".".join(str(p) for p in path)
                if err["type"] == "missing" and len(err["loc"]) > len(path):
                    report(".".join(str(p) for p in err["loc"]), "required")
                else:
                    report(key, _expected(err))
                items = [i for i, part in enumerate(path) if isinstance(part, int)]
                # Half a list item means something else (a rule without its policy): the whole item goes.
                _drop(data, path[: items[-1] + 1] if items else path)
                continue
            merged = candidate
            break
        else:
            report("", f"more than {_MAX_DROPS} bad keys: the whole layer is ignored")
    return Settings.model_validate(merged), issues


# --- all layers --------------------------------------------------------------------------------------------


def load_layers(
    workspace: Path | None = None,
    client_options: dict[str, Any] | None = None,
    cli_overrides: dict[str, Any] | None = None,
    environ: dict[str, str] | None = None,
    user_file: Path | None = None,
    client_source: str = "editor settings",
    trusted: bool | None = None,
) -> LoadResult:
    """Every layer in contract order, each key on its own, the workspace file through workspace trust.

    `trusted`: True applies the workspace file whole (the user just said so); None looks up the remembered answer.
    """
    issues: list[ConfigIssue] = []
    if workspace is not None:  # trust is remembered per real path: the CLI and the editor may name it differently
        workspace = workspace.expanduser().resolve()
    user_path = user_file or config_mod.user_config_path()
    user = read_toml_layer(user_path, f"user config {user_path}", issues)
    ws_path = workspace / WORKSPACE_FILE if workspace is not None else None
    ws = read_toml_layer(ws_path, f"workspace file {ws_path}", issues) if ws_path else Layer("workspace file", {})
    env = env_layer(environ)
    client = dict_layer(client_options, client_source, issues)
    cli = dict_layer(cli_overrides, "command line", issues)

    def copy(layer: Layer) -> Layer:
        return Layer(layer.source, _deep_copy(layer.data), layer.names)

    result = LoadResult(Settings(), issues, workspace=workspace)
    if ws.data and ws_path is not None and workspace is not None:
        below, _ = build_tolerant([copy(user)])
        # Answers live in the store the other layers name: the workspace cannot choose where its trust is read.
        outer, _ = build_tolerant([copy(user), copy(env), copy(client), copy(cli)])
        result.config_file = ws_path
        result.trust_db = outer.database_path()
        try:
            result.config_hash = trust.file_digest(ws_path)
        except (OSError, SandboxError):
            result.config_hash = None
        risky = trust.risky_keys(ws.data, below)
        if risky:
            if trusted:
                result.verdict = "trusted"
            elif result.config_hash is not None:
                try:
                    result.verdict = trust.is_trusted(result.trust_db, workspace, result.config_hash)
                except AgentServerError:  # an unreadable store: not trusted, and said so below
                    result.verdict = None
            if result.verdict != "trusted":
                ws = Layer(ws.source, trust.without(ws.data, risky))
                result.withheld = risky
        _add_rules_to_the_users(ws.data, below)
    result.settings, layer_issues = build_tolerant([user, ws, env, client, cli])
    issues.extend(layer_issues)
    return result


def _add_rules_to_the_users(layer: dict[str, Any], below: Settings) -> None:
    """A workspace's `tools.rules` add to the user file's rules: replacing the list would drop the user's denies."""
    tools = layer.get("tools")
    if isinstance(tools, dict) and isinstance(tools.get("rules"), list) and below.tools.rules:
        tools["rules"] = [rule.model_dump(exclude_none=True) for rule in below.tools.rules] + tools["rules"]


def trust_database(cli_overrides: dict[str, Any] | None = None, environ: dict[str, str] | None = None) -> Path:
    """Where trust answers are kept, as `load_layers` finds it (every layer but the workspace file)."""
    ignored: list[ConfigIssue] = []
    user_path = config_mod.user_config_path()
    layers = [
        read_toml_layer(user_path, "user config", ignored),
        env_layer(environ),
        dict_layer(cli_overrides, "command line", ignored),
    ]
    settings, _ = build_tolerant(layers)
    return settings.database_path()


def _deep_copy(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _deep_copy(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_deep_copy(v) for v in data]
    return data


# --- asking for trust ----------------------------------------------------------------------------------------

Notify = Callable[[str], Awaitable[None]]


async def settle_trust(
    loaded: LoadResult, reload: Callable[[], LoadResult], prompt: trust.Ask, notify: Notify
) -> LoadResult | None:
    """Ask about withheld workspace settings if this file was never answered; returns the reloaded settings when
    the workspace became trusted, else None (after a notice naming what stays ignored)."""
    if not loaded.withheld:
        return None
    ws, file, digest, db = loaded.workspace, loaded.config_file, loaded.config_hash, loaded.trust_db
    if loaded.needs_trust_question and ws is not None and file is not None and digest and db is not None:
        if await trust.ask(trust.TrustStore(db), ws, file, digest, loaded.withheld, prompt):
            fresh = await asyncio.to_thread(reload)
            # The file by its place in the workspace: a message wider than the editor's message line stops Neovim at
            # "Press ENTER" (a deep workspace path made it so), and the workspace is the one the user just trusted.
            shown = file.relative_to(ws) if file.is_relative_to(ws) else file
            await notify(f"Workspace trusted: {', '.join(k.key for k in loaded.withheld)} from {shown} now apply.")
            return fresh
    notice = loaded.trust_notice()
    if notice:
        await notify(notice)
    return None


def load(
    workspace: Path | None = None,
    client_options: dict[str, Any] | None = None,
    cli_overrides: dict[str, Any] | None = None,
    environ: dict[str, str] | None = None,
    user_file: Path | None = None,
) -> Settings:
    """All layers, in contract order, the way every face must read them: each bad key is logged and skipped, and
    the workspace file's risky keys apply only in a trusted workspace. Faces that show the problems to the user
    call `load_layers` and use its `issues` and `withheld` instead."""
    loaded = load_layers(workspace, client_options, cli_overrides, environ, user_file)
    for notice in loaded.notices():
        log.warning("%s", notice)
    return loaded.settings
