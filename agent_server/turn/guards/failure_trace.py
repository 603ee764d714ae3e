"""Before the first answer to "running `pytest t.py::test_x` fails": the failing test's path through the project's
code, traced (`failure_path.py`), goes to the model with the request (`agent.trace_failure`)."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..checks import run_check
from ..edit_formats.registry import of
from ..failure_path import Call, read_trace, render, traced
from ..requested_check import check_to_fix
from .guard import Guard, Verdict

if TYPE_CHECKING:
    from ..turn import Turn


class FailureTrace(Guard):
    async def at_start(self, turn: Turn) -> Verdict | None:
        if not turn.settings.agent.trace_failure:
            return None
        command = check_to_fix(turn.session)
        if not command:
            return None
        folder = Path(tempfile.mkdtemp(prefix="agent-server-trace-"))  # outside the workspace: nothing left in it
        try:
            failing = await trace_failing(turn, command, folder)
        finally:
            await asyncio.to_thread(shutil.rmtree, folder, True)
        told = (
            None
            if failing is None
            else await asyncio.to_thread(render, failing.test, failing.calls, turn.session.roots)
        )
        if told is None:
            return None
        # Last, how to answer: a small change of that file in the turn's format. Told to answer "with the change: the
        # file's path, then its whole content or search/replace blocks", the 1.5B wrote the path alone, twice.
        how = of(turn.settings.agent.edit_format).fix_ask.format(path=told.path)
        return Verdict(nudge=f"{told.text}\n{how}".strip(), quiet=True, kind="trace")


@dataclass
class FailingRun:
    """The named tests run once more with the tracer: what the run printed, and its first failing test's calls."""

    output: str
    test: str
    calls: list[Call]


async def trace_failing(turn: Turn, command: str, folder: Path) -> FailingRun | None:
    """`command` run once more with the tracer (a run_command card, approved as any command; the trace file in
    `folder`); None when it is not a pytest run of named tests, was declined, passes now, or left no trace."""
    out = folder / "trace.json"
    run = traced(command, out, turn.session.cwd, os.environ.get("PYTHONPATH"))
    if run is None:
        return None
    check = await run_check(turn, run, "trace")
    if check.exit_code in (0, None):
        return None
    found = await asyncio.to_thread(read_trace, out)
    return None if found is None else FailingRun(check.output, *found)
