"""Workspace trust: settings a repository brings may tighten, but may not loosen, until the user trusts it.

A cloned repository's `.agent-server.toml` is written by whoever wrote the repository. Its settings that
loosen a permission policy, add allow rules, start programs (MCP servers, hooks), send the conversation or keys to
another server (URLs, headers, API keys, fallbacks) or write outside the workspace (store, log and other paths)
take effect only once the user trusted that workspace, and so do settings that weaken a safety net (switching
checkpoints off, keeping fewer of them, raising a time or size limit) or name a command the server runs on its own
(`tools.lint`); the answer is remembered per workspace path and file
content (a SHA-256 of the file), so a changed file is asked about again. Settings that tighten always apply.

`risky_keys`, `withheld` and `is_trusted` are meant for any workspace-supplied settings (agent profiles too), not
only this file: express them as a settings-shaped dict (`{"tools": {"policy": ..., "rules": ...}, ...}`), ask
`withheld(...)` what to ignore, and drop it with `without`.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .config import Settings
from .store.db import Database
from .store.migrations import migrate

Verdict = Literal["trusted", "untrusted"]

TRUST = "Trust this workspace"
NOT_NOW = "Not now"
NEVER = "Don't trust"
CHOICES = [NOT_NOW, TRUST, NEVER]
"""The first is what Enter picks in a dialog (VS Code's modal, a select list): the question may appear while the user
is typing, so Enter must not trust. Not now (or no answer): ignored this time, asked at the next start. Trust:
remembered, applied now. Don't trust: remembered for this file content, never asked again until the file changes (the
CLI can still trust)."""

_RANK = {"allow": 0, "ask": 1, "deny": 2}
MAX_CONFIG_BYTES = 1_000_000
# Leaf keys that point outside the workspace: a server, a credential, a file or a program.
_OUTSIDE = re.compile(
    r"(^|_)(url|urls|headers|api_key|key|token|secret|password|path|paths|file|dir|command|args|env|cwd)$"
)
_PROGRAM_KEYS = {"mcp_servers": "starts a program or connects to a server", "hooks": "runs programs"}
# Safety nets a workspace may not weaken before it is trusted: (key path) -> what weakening it does. A boolean is
# weakened by turning it off, a number by making it smaller.
_SAFETY_NETS = {
    ("checkpoints", "enabled"): "switches off checkpoints (nothing to restore after a bad turn)",
    ("checkpoints", "max_per_session"): "keeps fewer checkpoints",
    ("checkpoints", "max_age_days"): "keeps checkpoints for less time",
    ("checkpoints", "max_file_bytes"): "copies fewer files into checkpoints",
}
# Limits a workspace may not raise before it is trusted: a larger value is weaker.
_LIMITS = {
    ("tools", "command_timeout_s"): "lets commands run longer before they are stopped",
    ("tools", "mcp_call_timeout_s"): "lets MCP calls run longer before they are stopped",
    ("llm", "retry_after_max_s"): "waits longer for a rate-limited LLM server before trying again",
    ("tools", "fetch_timeout_s"): "lets web_fetch wait longer for a page",
    ("tools", "fetch_max_bytes"): "lets web_fetch read larger pages",
    ("memory", "tokens"): "gives memory notes more of the prompt",
    ("skills", "tokens"): "gives the skill list more of the prompt",
    ("agent", "max_text_calls"): "lets one answer make more calls written as text (files-format edits included)",
}
# Switches a workspace may not turn on before it is trusted (turning them off tightens).
_SWITCHES = {("memory", "enabled"): "turns memory on (the repository's .agent-server/memory.md reaches every prompt)"}
# Maps whose every entry is a command the server runs on its own initiative: each new or changed entry needs trust
# (a name ending in `_command` is caught by `_OUTSIDE`; these values sit under a language name instead).
_COMMAND_MAPS = {("tools", "lint"): "runs a command after edits"}


@dataclass(frozen=True)
class RiskyKey:
    key: str
    """Dotted setting name, e.g. `tools.policy.run_command`."""
    why: str
    detail: str = ""
    """What is at stake, as the file says it: the program and its arguments, the URL, the rule (never a secret)."""


def file_digest(path: Path) -> str:
    from .tools.sandbox import read_regular  # a FIFO or /dev/zero posing as the config file must not hang us

    return hashlib.sha256(read_regular(path, MAX_CONFIG_BYTES)).hexdigest()


# --- classification -------------------------------------------------------------------------------------


def _default_policies() -> dict[str, str]:
    """Each built-in tool's default policy, read from its definition (no tool is built)."""
    from .tools.builtin import default_policies  # the tools import config; import them only when needed

    return dict(default_policies())


def _lookup(data: Any, parts: list[str]) -> Any:
    for part in parts:
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def risky_keys(layer: dict[str, Any], below: Settings) -> list[RiskyKey]:
    """The keys of `layer` (normalized, snake_case) that need trust, judged against the settings `below` it."""
    out: list[RiskyKey] = []
    base = below.model_dump()
    defaults: dict[str, str] | None = None

    def walk(node: Any, path: list[str]) -> None:
        nonlocal defaults
        dotted = ".".join(path)
        name = path[-1] if path else ""
        if path[:2] == ["tools", "policy"] and len(path) == 3:
            if defaults is None:
                defaults = _default_policies()
            now = below.tools.policy.get(name, defaults.get(name, "ask"))
            if node not in _RANK:
                return  # not a policy at all: validation reports it
            if _RANK[node] < _RANK.get(now, 1):
                out.append(RiskyKey(dotted, f"loosens the policy ({now} -> {node})", f"{name} = {node}"))
            return
        if path == ["tools", "rules"]:
            rules = node if isinstance(node, list) else [node]
            for i, rule in enumerate(rules):
                policy = rule.get("policy") if isinstance(rule, dict) else None
                if policy not in ("ask", "deny"):  # `ask` never beats an allow; `deny` beats everything
                    out.append(RiskyKey(f"{dotted}.{i}", "adds an allow rule", _rule_detail(rule)))
            return
        limit = _LIMITS.get((path[0], path[1])) if len(path) == 2 else None
        if limit is not None:
            now = _lookup(base, path)
            if isinstance(node, int | float) and isinstance(now, int | float) and node > now:
                out.append(RiskyKey(dotted, limit))
            return
        commands = _COMMAND_MAPS.get((path[0], path[1])) if len(path) == 2 else None
        if commands is not None:
            now = _lookup(base, path)
            mine = now if isinstance(now, dict) else {}
            entries = node.items() if isinstance(node, dict) else [("", node)]
            for key, command in entries:
                if not key or mine.get(key) != command:
                    out.append(RiskyKey(f"{dotted}.{key}" if key else dotted, commands, _short(str(command))))
            return
        switch = _SWITCHES.get((path[0], path[1])) if len(path) == 2 else None
        if switch is not None:
            if node is True and _lookup(base, path) is not True:
                out.append(RiskyKey(dotted, switch))
            return
        net = _SAFETY_NETS.get((path[0], path[1])) if len(path) == 2 else None
        if net is not None:
            now = _lookup(base, path)
            if isinstance(now, bool) or isinstance(node, bool):
                weaker = now is True and node is not True
            else:
                weaker = isinstance(node, int | float) and isinstance(now, int | float) and node < now
            if weaker:
                out.append(RiskyKey(dotted, net))
            return
        if len(path) == 1 and name in _PROGRAM_KEYS:
            entries = node.items() if isinstance(node, dict) else [("", node)]
            for key, spec in entries:
                out.append(RiskyKey(f"{dotted}.{key}" if key else dotted, _PROGRAM_KEYS[name], _programs(spec)))
            return
        if name in _PROGRAM_KEYS:
            out.append(RiskyKey(dotted, _PROGRAM_KEYS[name], _programs(node)))
            return
        if name == "fallbacks" or _OUTSIDE.search(name):
            if node is None or node == _lookup(base, path):
                return  # the same value as below: nothing new
            why = "points outside the workspace (a server, key, path or program)"
            out.append(RiskyKey(dotted, why, _shown_value(name, node)))
            return
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, [*path, str(key)])

    for key, value in layer.items():
        walk(value, [str(key)])
    return out


_SECRET = re.compile(r"(^|_)(headers|api_key|key|token|secret|password|env)$")
_DETAIL_CHARS = 300


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL_CHARS else text[: _DETAIL_CHARS - 1] + "…"


def _command_line(command: Any, args: Any = None) -> str:
    parts = [str(p) for p in command] if isinstance(command, list) else [str(command)]
    if isinstance(args, list):
        parts += [str(a) for a in args]
    return " ".join(parts)


def _programs(spec: Any) -> str:
    """The programs, URLs and commands an MCP server entry or a hook list would run or reach."""
    found: list[str] = []

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if "url" in node:
                found.append(f"connects to {node['url']}")
            if "command" in node:
                found.append(f"runs {_command_line(node['command'], node.get('args'))}")
            for key, value in node.items():
                if key not in ("url", "command", "args") and not _SECRET.search(str(key)):
                    visit(value)
        elif isinstance(node, list):
            for item in node:
                visit(item)

    visit(spec)
    return _short("; ".join(found))


def _rule_detail(rule: Any) -> str:
    if not isinstance(rule, dict):
        return ""
    pattern = rule.get("pattern")
    return _short(f"{rule.get('policy', 'allow')} {rule.get('tool', '?')}" + (f" {pattern}" if pattern else ""))


def _shown_value(name: str, value: Any) -> str:
    """A URL, path or program is shown; a key, token, password or header is not: the question must not leak it."""
    if _SECRET.search(name):
        return "(value hidden)"
    return _short(value if isinstance(value, str) else repr(value))


def without(layer: dict[str, Any], keys: list[RiskyKey]) -> dict[str, Any]:
    """A copy of `layer` with `keys` removed (list items by index: `tools.rules.2`)."""
    drop = {k.key for k in keys}

    def strip(node: Any, path: list[str]) -> Any:
        if isinstance(node, dict):
            return {k: strip(v, [*path, str(k)]) for k, v in node.items() if ".".join([*path, str(k)]) not in drop}
        if isinstance(node, list):
            return [strip(v, [*path, str(i)]) for i, v in enumerate(node) if ".".join([*path, str(i)]) not in drop]
        return node

    result: dict[str, Any] = strip(layer, [])
    return result


# --- remembered answers -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrustRecord:
    workspace: str
    config_hash: str
    trusted: bool
    decided_at: float


class TrustStore:
    """The `workspace_trust` table of the session store; short-lived connections (CLI and server alike)."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path

    @contextmanager
    def _db(self) -> Iterator[Database]:
        db = Database(self.db_path)
        try:
            migrate(db)
            yield db
        finally:
            db.close()

    def verdict(self, workspace: Path, config_hash: str) -> Verdict | None:
        with self._db() as db, db.read() as conn:
            row = conn.execute(
                "SELECT trusted FROM workspace_trust WHERE workspace = ? AND config_hash = ?",
                (str(workspace), config_hash),
            ).fetchone()
        if row is None:
            return None
        return "trusted" if row["trusted"] else "untrusted"

    def remember(self, workspace: Path, config_hash: str, trusted: bool) -> None:
        with self._db() as db, db.write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO workspace_trust (workspace, config_hash, trusted, decided_at) "
                "VALUES (?, ?, ?, ?)",
                (str(workspace), config_hash, int(trusted), time.time()),
            )

    def list(self) -> list[TrustRecord]:
        with self._db() as db, db.read() as conn:
            rows = conn.execute("SELECT * FROM workspace_trust ORDER BY workspace, decided_at").fetchall()
        return [TrustRecord(r["workspace"], r["config_hash"], bool(r["trusted"]), r["decided_at"]) for r in rows]

    def revoke(self, workspace: Path) -> int:
        """Forget every answer for `workspace` (trusted or not): the next start asks again."""
        with self._db() as db, db.write() as conn:
            cursor = conn.execute("DELETE FROM workspace_trust WHERE workspace = ?", (str(workspace),))
        return cursor.rowcount


def is_trusted(db_path: Path, workspace: Path, config_hash: str) -> Verdict | None:
    """The remembered answer for this workspace and file content, or None (never asked, or the file changed)."""
    return TrustStore(db_path).verdict(workspace, config_hash)


def withheld(layer: dict[str, Any], below: Settings, db_path: Path, subject: Path, digest: str) -> list[RiskyKey]:
    """The keys of `layer` to ignore: its risky keys unless `subject` (a workspace root, or any file standing for
    one, such as an agent profile) was trusted with this content `digest`. Apply `without(layer, result)`."""
    keys = risky_keys(layer, below)
    if keys and is_trusted(db_path, subject, digest) == "trusted":
        return []
    return keys


# --- asking -----------------------------------------------------------------------------------------------


def describe(keys: list[RiskyKey]) -> str:
    return ", ".join(f"{k.key} ({k.why})" for k in keys)


def at_stake(keys: list[RiskyKey]) -> list[str]:
    """One line per key: the setting, what it does, and what it names (the program, URL or rule)."""
    return [f"- {k.key}: {k.why}" + (f": {k.detail}" if k.detail else "") for k in keys]


def question(config_file: Path, keys: list[RiskyKey]) -> str:
    """The first line says what is asked; the lines after it list what trusting would enable (editors show them
    as the question's detail)."""
    lines = "\n".join(at_stake(keys))
    return (
        f"{config_file} asks for settings that only a trusted workspace may use. Trust this workspace? "
        f"Only trust a repository whose author you trust.\n{lines}"
    )


def ignored_notice(config_file: Path, keys: list[RiskyKey], workspace: Path) -> str:
    names = ", ".join(k.key for k in keys)
    return (
        f"Ignored until you trust this workspace: {names} (from {config_file}). "
        f"To trust it: `agent-server permissions trust add {workspace}`."
    )


Ask = Callable[[str, list[str]], Awaitable[str | None]]


async def ask(
    store: TrustStore, workspace: Path, config_file: Path, config_hash: str, keys: list[RiskyKey], prompt: Ask
) -> bool:
    """Ask once; remember Trust and Don't trust (per file content); True when the workspace is now trusted."""
    answer = await prompt(question(config_file, keys), CHOICES)
    if answer == TRUST:
        await asyncio.to_thread(store.remember, workspace, config_hash, True)
        return True
    if answer == NEVER:
        await asyncio.to_thread(store.remember, workspace, config_hash, False)
    return False
