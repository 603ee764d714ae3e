"""`load_skill`: the model loads a skill's instructions (or a file beside its SKILL.md) when a task needs it.
Offered only when there are skills; reading them asks nothing, like `read_file` (policy `allow`)."""

from __future__ import annotations

import asyncio
from typing import Any

from ..errors import SandboxError, ToolError
from ..tools.base import Tool, ToolContext, ToolResult
from .skills import MAX_BODY_BYTES, Refuse, Skill, read_beside
from .skills_prompt import loaded_text

LOAD_SKILL = "load_skill"
NAMES_LISTED = 100  # an unknown name gets the list of the real ones


def _load(skill: Skill, file: str | None, trusted: bool, refuse: Refuse | None) -> str:
    if not file:
        return loaded_text(skill, trusted)
    text = read_beside(skill, file, MAX_BODY_BYTES, refuse)
    return f'<skill-file skill="{skill.name}" file="{file}">\n{text}\n</skill-file>'


def load_skill_tool(skills: list[Skill], trusted: bool, refuse: Refuse | None = None) -> Tool:
    by_name = {s.name: s for s in skills}

    async def handler(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        name = str(args.get("name", "")).strip().lstrip("/")
        skill = by_name.get(name)
        if skill is None:
            names = ", ".join(sorted(by_name)[:NAMES_LISTED])
            raise ToolError(f"no skill named {name[:80]!r}; the skills are: {names}")
        file = args.get("file")
        try:
            text = await asyncio.to_thread(_load, skill, str(file) if file else None, trusted, refuse)
        except (OSError, SandboxError) as exc:
            raise ToolError(f"cannot read the skill {name!r}: {exc}") from None
        return ToolResult(text=text)

    return Tool(
        name=LOAD_SKILL,
        description=(
            "Load a skill's instructions by its name (the skills are listed in the system prompt); with file, "
            "read a file beside its SKILL.md instead."
        ),
        parameters={
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The skill's name."},
                "file": {"type": "string", "description": "A file of the skill's folder, as its load listed it."},
            },
            "required": ["name"],
            "additionalProperties": False,
        },
        handler=handler,
        kind="read",
        default_policy="allow",
        title=lambda a: f"Skill {a.get('name')}" + (f": {a['file']}" if a.get("file") else ""),
    )
