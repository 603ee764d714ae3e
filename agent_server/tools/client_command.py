"""run_command in the client's terminal (ACP `terminal/*`), where the user watches it run.

Approvals and the workspace check happen before, exactly as for a local run; only where the process lives changes.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..client_contract import ClientTerminal
from .base import ToolContext, ToolResult

# The variables a local run sets too: nothing may wait for a pager or a password prompt.
QUIET_ENV = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")


async def run_in_client_terminal(
    ctx: ToolContext, terminal: ClientTerminal, command: str, cwd: Path, timeout_s: float, budget: int
) -> ToolResult:
    run = await terminal.run_command(ctx.session_id, command, cwd, dict(QUIET_ENV), timeout_s, budget)
    output = _ANSI.sub("", run.output).replace("\r\n", "\n").strip("\n") or "(no output)"
    if run.truncated:
        output = "[... earlier output cut ...]\n" + output
    raw = {"exit_code": run.exit_code, "timed_out": run.timed_out, "terminal": "client"}
    if run.timed_out:
        text = f"Command timed out after {timeout_s:g}s and was stopped.\nOutput:\n{output}"
        return ToolResult(text=text, is_error=True, raw_output=raw)
    if run.exit_code is None:
        text = f"Command was stopped by signal {run.signal or 'unknown'}.\nOutput:\n{output}"
        return ToolResult(text=text, is_error=True, raw_output=raw)
    text = f"Exit code: {run.exit_code}\nOutput:\n{output}"
    return ToolResult(text=text, is_error=run.exit_code != 0, raw_output=raw)
