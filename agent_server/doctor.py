"""`agent-server doctor`: find the LLM server and its models, say what is wrong and how to fix it."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import __version__
from .config import Settings, user_config_path
from .errors import LLMError
from .llm.base import ModelInfo


@dataclass
class Report:
    version: str = __version__
    provider: str | None = None
    base_url: str | None = None
    model: str | None = None
    models: list[dict[str, Any]] = field(default_factory=list)
    mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    embedded: dict[str, Any] = field(default_factory=dict)
    completion: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rules: dict[str, Any] = field(default_factory=dict)
    """The rules files the model would get now (files, tokens, budget, what is cut), for the chosen window."""
    requests: dict[str, Any] = field(default_factory=dict)
    """What requests to the LLM server carry (llm/wire.py): header names (never values), the session header, the CA
    in use, priority."""


def _row(info: ModelInfo) -> dict[str, Any]:
    from .llm.router import state_of

    tools = {True: "native", False: "prompt-based", None: "unknown"}[info.supports_tools]
    return {
        "name": info.name,
        "tools": tools,
        "thinking": info.supports_thinking,
        "embeddings": info.supports_embeddings,
        "context_length": info.context_length,
        # llama.cpp's router: loaded, loading, unloaded (other servers have no such state)
        **({"state": state} if (state := state_of(info)) is not None else {}),
    }


async def collect(settings: Settings, workspace: Path) -> Report:
    from .llm.capabilities import apply_overrides
    from .llm.model_names import find_listed
    from .llm.registry import build, resolve_endpoint

    report = Report()
    config_files = [p for p in (user_config_path(), workspace / ".agent-server.toml") if p.is_file()]
    report.notes.append("config files: " + (", ".join(map(str, config_files)) or "none (defaults)"))
    report.embedded = embedded_status(settings)
    if settings.llm.provider == "embedded" and not report.embedded.get("ready"):
        # Do not download hundreds of megabytes from a diagnosis: say what the first use will do.
        report.provider, report.model = "embedded", str(report.embedded.get("model"))
        report.problems.append(str(report.embedded["next_step"]))
        return report
    try:
        name, url, model = await resolve_endpoint(settings)
    except LLMError as exc:
        fix = (
            "Fix: start Ollama (`ollama serve`) or LM Studio's server, or set llm.provider and llm.base_url in "
            "~/.config/agent-server/config.toml (see docs/configuration.md)"
        )
        if settings.llm.provider is None:
            fix += f"; or use the built-in local model: {report.embedded['next_step']}"
        report.problems.append(f"{exc}. {fix}.")
        return report
    report.provider, report.base_url, report.model = name, url, model
    try:
        provider = build(name, url, settings.llm)
    except LLMError as exc:  # llm.ca_file that is not a CA bundle
        report.problems.append(str(exc))
        return report
    wire = getattr(provider, "wire", None)
    if wire is not None:
        report.requests = wire.describe()
    try:
        listed = await provider.list_models()
        names = [m.name for m in listed]
        # Ollama's spelling rules: "qwen3" is the listed "qwen3:latest", not a missing model.
        listed_name = find_listed(model, names)
        infos: dict[str, ModelInfo] = {}
        for listed_model in listed[:20]:
            try:
                info = await provider.model_info(listed_model.name)
            except LLMError:
                info = listed_model
            info = infos[info.name] = _with_learned(settings, url, info)
            report.models.append(_row(apply_overrides(info, settings.llm if info.name == listed_name else None)))
        if listed_name is None and names:
            report.problems.append(
                f"model '{model}' is not on {url} (it has: {', '.join(names[:8])}). "
                f"Fix: `ollama pull {model}` or set llm.model to one of those."
            )
        report.model = listed_name or model
        chosen = next((m for m in report.models if m["name"] == listed_name), None)
        if chosen and chosen["context_length"] and chosen["context_length"] < 8192:
            report.notes.append(
                f"{model} has a {chosen['context_length']}-token window: long sessions will be compacted often."
            )
        if chosen and chosen["tools"] == "prompt-based":
            report.notes.append(f"{model} has no native tool calling: tools are described in the prompt instead.")
        report.notes.extend(_capability_notes(infos.get(listed_name or "")))
        report.notes.append(_edit_format_note(settings, listed_name or model))
    except LLMError as exc:
        report.problems.append(f"{exc}. Fix: check that the server at {url} is running and reachable.")
    finally:
        await provider.aclose()
    report.completion = await _completion_status(settings)
    if report.completion.get("note"):
        report.notes.append(report.completion["note"])
    report.mcp_servers = await _mcp_status(settings, workspace)
    for server in report.mcp_servers:
        if server.get("state") == "failed":
            report.problems.append(f"MCP server '{server['name']}' failed: {server.get('error')}")
    return report


def embedded_status(settings: Settings) -> dict[str, Any]:
    """Whether the built-in model can run here and what its first use costs (docs/providers.md, Embedded model)."""
    from .llm.embedded.catalogue import CatalogueModel, resolve
    from .llm.embedded.download import cached_path
    from .llm.embedded.server import models_dir, xllamacpp_installed

    llm = settings.llm
    status: dict[str, Any] = {"xllamacpp": xllamacpp_installed()}
    try:
        target = resolve(llm.model if llm.provider == "embedded" else None)
    except LLMError as exc:
        return {**status, "ready": False, "model": llm.model, "next_step": str(exc)}
    if isinstance(target, CatalogueModel):
        path = cached_path(target, models_dir(llm.embedded))
        status |= {"model": target.name, "file": str(path) if path else None, "size": target.size}
    else:
        path = target
        status |= {"model": str(target), "file": str(target)}
    status["ready"] = bool(status["xllamacpp"] and path)
    if not status["xllamacpp"]:
        from .llm.embedded.install_hint import install_command

        status["next_step"] = f"{install_command()}, then `agent-server chat --provider embedded`"
    elif path is None:
        status["next_step"] = (
            f"`agent-server chat --provider embedded` (downloads {status['model']}, "
            f"{int(status['size']) / 1e6:,.0f} MB, once, into {models_dir(llm.embedded)})"
        )
    else:
        status["next_step"] = "`agent-server chat --provider embedded` (model downloaded; starts in seconds)"
    status["choices"] = model_choices(models_dir(llm.embedded))
    return status


def _available_mib() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def model_choices(cache: Path) -> list[dict[str, Any]]:
    """The built-in coder models with what each costs here, and which one this machine should start with."""
    import os

    from .llm.embedded.catalogue import CATALOGUE, suggested_model
    from .llm.embedded.download import cached_path

    pick = suggested_model(_available_mib(), os.cpu_count())
    return [
        {
            "model": m.name,
            "downloadMB": round(m.size / 1e6),
            "residentMiB": m.resident_mib,
            "speed": m.speed,
            "downloaded": cached_path(m, cache) is not None,
            "suggested": m.name == pick,
            "use": f"agent-server chat --provider embedded --model {m.name}",
        }
        for m in CATALOGUE.values()
        if m.resident_mib  # the coder models; the tiny check-only model is not a choice
    ]


def _with_learned(settings: Settings, url: str, info: ModelInfo) -> ModelInfo:
    """What a session learnt about the model and stored (native tools the server dropped), over what it reports."""
    path = settings.database_path()
    if not path.is_file():
        return info
    from .store import Store

    try:
        with Store(path) as store:
            cached = store.get_capabilities(url, info.name)
    except Exception:  # a locked or damaged store must not break the diagnosis
        return info
    dropped = (cached or {}).get("details", {}).get("tools_dropped")
    if dropped:
        info.supports_tools = False
        info.details["tools_dropped"] = dropped
    return info


def _edit_format_note(settings: Settings, model: str) -> str:
    """How the model will change files, and why: the user's setting, this machine's scorecard run, the project's."""
    from .store import Store
    from .turn.edit_format import choose_why, model_key

    setting = settings.agent.edit_format
    remembered: tuple[str, str] | None = None
    if setting == "auto" and settings.database_path().is_file():
        try:
            with Store(settings.database_path()) as store:
                remembered = store.get_measured_format(model_key(model))
        except Exception:  # a locked or damaged store must not break the diagnosis
            remembered = None
    fmt, why = choose_why(setting, model, remembered)
    how = "whole files / search-replace blocks in its answer" if fmt == "files" else "tool calls"
    return f"{model} edits files with {how} ({why})."


def _capability_notes(info: ModelInfo | None) -> list[str]:
    """Where the window and the tool mode of the chosen model come from."""
    if info is None:
        return []
    notes = []
    facts = info.details.get("server_facts") or {}
    if facts.get("server") == "llama.cpp":
        caps = facts.get("chat_template_caps") or {}
        notes.append(
            f"llama.cpp /props: window n_ctx={facts.get('n_ctx', '?')}, chat template "
            f"supports_tools={caps.get('supports_tools', '?')}, model_alias={facts.get('model_alias', '?')}"
        )
    elif facts.get("server") == "lmstudio":
        notes.append(
            f"LM Studio /api/v0/models: loaded_context_length={facts.get('loaded_context_length', '?')}, "
            f"max_context_length={facts.get('max_context_length', '?')}, capabilities={facts.get('capabilities', [])}"
        )
    dropped = info.details.get("tools_dropped")
    if isinstance(dropped, dict):
        notes.append(
            f"{info.name}: the server dropped native tool definitions in an earlier session (a "
            f"{dropped.get('prompt_tokens')}-token prompt for about {dropped.get('tool_tokens')} tokens of tools): "
            'prompt-based tools are used; set llm.tool_mode = "native" to override.'
        )
    return notes


async def _completion_status(settings: Settings) -> dict[str, Any]:
    """Whether inline completion can work with the configured model: a model that cannot fill in the middle gets no
    completion requests, which is a note (chat still works), not a problem."""
    if not settings.completion.enabled:
        return {"enabled": False, "note": "inline completion: off (completion.enabled = false)"}
    from .completion.backends import describe
    from .completion.endpoint import open_backend

    try:
        backend = await open_backend(settings)
    except LLMError as exc:
        return {"enabled": True, "supported": False, "note": f"inline completion: no server ({exc})"}
    try:
        support = await backend.check()
    finally:
        await backend.aclose()
    if support.ok:
        return {"enabled": True, "supported": True, "backend": describe(backend),
                "note": f"inline completion: {describe(backend)}"}  # fmt: skip
    return {
        "enabled": True,
        "supported": False,
        "reason": support.reason,
        "note": f"inline completion is off for this model: {support.reason} (docs/completion.md)",
    }


async def _mcp_status(settings: Settings, workspace: Path) -> list[dict[str, Any]]:
    if not settings.mcp_servers:
        return []
    from .tools.mcp import McpManager, describe_servers

    manager = McpManager(settings.mcp_servers, call_timeout_s=settings.tools.mcp_call_timeout_s, cwd=workspace)
    await manager.start()
    try:
        return [asdict(s) for s in await describe_servers(manager)]  # waits for the servers to settle
    finally:
        await manager.aclose()


def _add_rules(report: Report, settings: Settings, workspace: Path) -> None:
    """Which rules files a session here would get, as the server builds them (budget from the chosen window)."""
    from .context import context_window
    from .context_sources.rules import discover
    from .context_sources.rules_prompt import budget_for, render
    from .context_sources.session_rules import workspace_trusted

    chosen = next((m for m in report.models if m["name"] == report.model), None)
    window = settings.llm.context_length or (chosen or {}).get("context_length") or context_window(None)
    budget = budget_for(window, settings.context.rules_tokens)
    found = discover(workspace)
    block = render(found, budget, workspace_trusted(settings.database_path(), workspace))
    scoped = [r.label for r in found if r.scoped]
    report.rules = {
        "files": block.files,
        "tokens": block.tokens,
        "budget": budget,
        "cut": block.cut,
        "scoped": scoped,
        "trusted": block.trusted,
    }
    text = block.summary()
    if scoped:
        text += f"; with the files they cover: {', '.join(scoped)} (and any nested AGENTS.md)"
    if block.files and not block.trusted:
        text += "; untrusted workspace: the repository's rules are marked as its author's words"
    report.notes.append(text)


def _requests_line(requests: dict[str, Any]) -> str:
    headers = ", ".join(requests.get("headers") or []) or "none"
    return (
        f"LLM requests: extra headers {headers}{' (values hidden)' if requests.get('headers') else ''}; "
        f"session header {requests.get('sessionHeader') or 'off'}; priority {requests.get('priority')}; "
        f"trusted CAs: {requests.get('ca')}"
    )


def render(report: Report, console: Console) -> None:
    console.print(f"agent-server {report.version}")
    if report.base_url:
        console.print(
            f"LLM server: {escape(str(report.provider))} at {escape(report.base_url)}; "
            f"model: [bold]{escape(str(report.model))}[/]"
        )
    if report.requests:
        console.print(escape(_requests_line(report.requests)))
    if report.models:
        states = any(m.get("state") for m in report.models)  # llama.cpp's router: each model's load state
        table = Table("model", "tools", "thinking", "embeddings", "context", *(["state"] if states else []))
        for m in report.models:
            mark = "→ " if m["name"] == report.model else "  "

            def yn(v: bool | None) -> str:
                return "?" if v is None else ("yes" if v else "no")

            table.add_row(
                escape(mark + m["name"]),
                escape(str(m["tools"])),
                yn(m["thinking"]),
                yn(m["embeddings"]),
                str(m["context_length"] or "?"),
                *([str(m.get("state") or "?")] if states else []),
            )
        console.print(table)
    for server in report.mcp_servers:
        tools = ", ".join(server.get("tools", [])[:10])
        console.print(escape(f"MCP {server['name']}: {server.get('state')} {tools}"))
    if report.embedded:
        e = report.embedded
        state = "ready" if e.get("ready") else ("not installed" if not e.get("xllamacpp") else "not downloaded yet")
        console.print(escape(f'Built-in model (llm.provider = "embedded"): {e.get("model")}: {state}'))
        for c in e.get("choices", []):
            mark = "→ suggested here" if c["suggested"] else ""
            cost = f"{c['downloadMB']:,} MB download, ~{c['residentMiB'] / 1024:.1f} GiB resident, {c['speed']}"
            console.print(escape(f"  {c['model']}: {cost} {mark}".rstrip()), highlight=False)
    for note in report.notes:
        console.print(f"[dim]• {escape(note)}[/]")
    for problem in report.problems:
        console.print(f"[red]✗ {escape(problem)}[/]")
    if not report.problems:
        console.print("[green]✓ everything looks fine[/]")


async def run_doctor(
    settings: Settings, workspace: Path, as_json: bool = False, config_notices: list[str] | None = None
) -> int:
    report = await collect(settings, workspace)
    _add_rules(report, settings, workspace)
    # Bad settings were skipped (each alone) and risky workspace settings wait for trust: both are problems to fix.
    report.problems[:0] = config_notices or []
    if as_json:
        print(json.dumps(asdict(report), indent=2))
    else:
        render(report, Console(file=sys.stdout, highlight=False))
    return 1 if report.problems else 0
