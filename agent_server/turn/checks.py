"""Checks the turn runs itself, visibly: a command as a run_command card (policy and approval as for the model's
own calls), and the diagnostics watch around edits (the editor's, else a configured linter's)."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..messages import ToolCall
from ..tools import diagnostics
from ..tools.base import Tool, ToolContext
from ..tools.command import RunCommand, RunCommandArgs
from ..tools.sandbox import relative, resolve
from .tool_step import run_tool_call

if TYPE_CHECKING:
    from .turn import Turn

AfterEdit = Callable[[], Awaitable[str]]


@dataclass
class CheckRun:
    """How a check command ended; `exit_code` None when it did not run (declined, denied, unavailable, timed out)."""

    exit_code: int | None
    output: str


async def run_check(turn: Turn, command: str, purpose: str, timeout_s: float | None = None) -> CheckRun:
    """Run `command` as if the model had called run_command: a card the user sees, the policy, the approval (and the
    tool's default timeout unless `timeout_s` is given)."""
    if turn.tools.get(RunCommand.name) is None:
        return CheckRun(None, f"{RunCommand.name} is not available in this mode")
    arguments = RunCommandArgs(command=command).model_dump(exclude_unset=True)
    if timeout_s is not None:
        arguments["timeout_s"] = timeout_s
    call = ToolCall(id=f"{purpose}_{uuid.uuid4().hex[:8]}", name=RunCommand.name, arguments=arguments)
    result = await run_tool_call(turn, call)
    raw = result.raw_output if isinstance(result.raw_output, dict) else {}
    code = raw.get("exit_code")
    _, _, output = result.text.partition("\nOutput:\n")
    return CheckRun(code if isinstance(code, int) else None, output)


def edit_watcher(turn: Turn) -> Callable[[Tool, dict[str, Any]], Awaitable[AfterEdit | None]]:
    """The turn's `watch_edit`: before an edit, the file's problems as they are; after it, the note on new ones."""
    lint_outputs: dict[Path, str] = {}  # the linter's last output per file in this turn: the next edit's "before"

    async def watch(tool: Tool, arguments: dict[str, Any]) -> AfterEdit | None:
        if tool.touches != "writes" or not turn.settings.tools.diagnostics:
            return None
        ctx = ToolContext(session_id=turn.session.id, roots=turn.session.roots, client=turn.client)
        try:
            path = resolve(ctx.roots, str(arguments["path"]))
        except Exception:  # outside the workspace or no path: the tool itself reports it
            return None
        rel = relative(ctx.roots, path)
        if ctx.client.features.diagnostics is not None:
            before = await diagnostics.editor_snapshot(ctx, path)
            if before is None:
                return None
            timeout = turn.settings.tools.diagnostics_timeout_s
            return lambda: diagnostics.editor_introduced(ctx, path, rel, before, timeout)
        command = diagnostics.lint_command(turn.settings.tools, path, rel)
        if command is None:
            return None
        if path not in lint_outputs:
            if path.exists():
                first = await run_check(turn, command, "lint")
                if first.exit_code is None:
                    return None  # declined or could not run: no linting around this edit
                lint_outputs[path] = first.output
            else:
                lint_outputs[path] = ""

        async def after() -> str:
            run = await run_check(turn, command, "lint")
            if run.exit_code is None:
                return ""
            before, lint_outputs[path] = lint_outputs[path], run.output
            return diagnostics.render_lint(command, diagnostics.introduced_lines(before, run.output))

        return after

    return watch
