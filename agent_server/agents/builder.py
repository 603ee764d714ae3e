"""The agent builder: a profile file from a short form (name, purpose, tools, model), and the catalog as data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .loader import WORKSPACE_DIR, ProfileError, load_catalog, parse_profile, user_dir


def render_profile(name: str, description: str, tools: list[str] | None, model: str | None, prompt: str) -> str:
    front: dict[str, Any] = {"name": name, "description": description}
    if model:
        front["model"] = model
    if tools:
        front["tools"] = tools
    body = prompt.strip() or f"You are the {name} agent. {description}".strip()
    head: str = yaml.safe_dump(front, sort_keys=False, allow_unicode=True)
    return "---\n" + head + "---\n" + body + "\n"


def create_profile(
    workspace: Path | None,
    *,
    name: str,
    description: str = "",
    tools: list[str] | None = None,
    model: str | None = None,
    prompt: str = "",
) -> Path:
    """Write `.agent-server/agents/NAME.md` in `workspace` (or the user's config dir when None); the text is
    validated before anything is written, and an existing profile is never overwritten."""
    directory = (workspace / WORKSPACE_DIR) if workspace is not None else user_dir()
    path = directory / f"{name}.md"
    text = render_profile(name, description, tools, model, prompt)
    parse_profile(text, path, "workspace" if workspace is not None else "user")  # raises ProfileError
    if path.exists():
        raise FileExistsError(f"{path} already exists; edit it instead (agent-server agents edit {name})")
    directory.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def describe_catalog(workspace: Path | None, db_path: Path) -> dict[str, Any]:
    """Every profile a session in `workspace` can use, and the files that could not be loaded."""
    from .modes import catalog_for

    catalog = catalog_for(workspace, db_path) if workspace is not None else load_catalog(None)
    agents = [
        {
            "name": p.name,
            "description": p.spec.description,
            "scope": p.scope,
            "path": str(p.path) if p.path else None,
            "kind": p.spec.kind,
            "model": p.spec.model,
            "tools": p.spec.tools,
            "readOnly": p.read_only,
            "notices": list(p.notices),
        }
        for p in catalog.profiles.values()
    ]
    return {"agents": agents, "errors": catalog.errors}


__all__ = ["ProfileError", "create_profile", "describe_catalog", "render_profile"]
