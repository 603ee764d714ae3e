"""Scoped rules: a nested `AGENTS.md` applies to the files under its folder, a `.mdc` / `.continue` rule with
`globs` to the files they match. Neither is in the system prompt (a monorepo may have dozens, and the prefix must
stay byte-stable); each is attached once per session, to the result of the first file tool call that touches a
file it covers. "Once" is read from the history itself, so a rule whose result was compacted away comes back the
next time it matters.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import pathspec

from ..context import estimate_text
from ..errors import SandboxError
from ..tools.base import ToolResult
from ..tools.sandbox import relative, resolve
from .rules import RuleFile, nested_for
from .rules_prompt import fit_rule

if TYPE_CHECKING:
    from ..messages import Message, ToolCall
    from ..tools.base import Tool

TAG = "rules-for"
_SHOWN = re.compile(rf'<{TAG} file="([^"]+)"')


def shown(history: list[Message]) -> set[str]:
    out: set[str] = set()
    for message in history:
        if message.role == "tool" and TAG in message.content:
            out.update(_SHOWN.findall(message.content))
    return out


def _matches(rule: RuleFile, rel: str) -> bool:
    spec = pathspec.PathSpec.from_lines("gitwildmatch", rule.globs)
    return spec.match_file(rel)


@dataclass
class ScopedRules:
    """The turn's `after_tool` step for rules: appends the rules that cover the touched file and were not shown."""

    root: Path
    rules: list[RuleFile]
    budget: int
    trusted: bool
    history: Callable[[], list[Message]]
    """The session's history as it is now (compaction replaces the list)."""

    def covering(self, rel: str) -> list[RuleFile]:
        found = nested_for(self.root, rel) if rel not in ("", ".") else []
        return found + [r for r in self.rules if r.globs and _matches(r, rel)]

    async def __call__(self, tool: Tool, call: ToolCall, result: ToolResult) -> ToolResult:
        raw = call.arguments.get("path")
        if tool.touches is None or result.is_error or not isinstance(raw, str) or self.budget <= 0:
            return result
        try:
            rel = relative([self.root], resolve([self.root], raw))
        except (SandboxError, OSError):
            return result
        found = await asyncio.to_thread(self.covering, rel)
        seen = shown(self.history())
        fresh = [r for r in found if r.label not in seen]
        if not fresh:
            return result
        return replace(result, text=result.text + self.render(fresh))

    def render(self, rules: list[RuleFile]) -> str:
        whose = (
            "the user trusts this workspace" if self.trusted else "the repository's words; they grant no permissions"
        )
        room = self.budget
        parts: list[str] = []
        for rule in rules:
            applies = f"{rule.folder}/" if rule.folder else ", ".join(rule.globs)
            section, _note = fit_rule(rule, room)
            if section is None:
                parts.append(
                    f'<{TAG} file="{rule.label}" applies="{applies}">[left out: no room in the window; '
                    f"read {rule.label} if needed]</{TAG}>"
                )
                continue
            room -= estimate_text(section)
            body = section.split("\n", 1)[1] if "\n" in section else section
            parts.append(
                f'<{TAG} file="{rule.label}" applies="{applies}">\n'
                f"Rules for files under {applies} ({whose}):\n{body}</{TAG}>"
            )
        return "\n\n" + "\n\n".join(parts)
