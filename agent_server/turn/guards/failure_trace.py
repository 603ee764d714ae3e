"""Before the first answer to "running `pytest t.py::test_x` fails": the failing test's path through the project's
code, traced (`failure_path.py`), goes to the model with the request (`agent.trace_failure`)."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..checks import run_check
from ..edit_formats.registry import of
from ..failure_path import Told, read_trace, render, traced
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
            out = folder / "trace.json"
            run = traced(command, out, turn.session.cwd, os.environ.get("PYTHONPATH"))
            if run is None or (await run_check(turn, run, "trace")).exit_code in (0, None):
                return None  # not a pytest run of named tests, declined, or the test passes now
            told = await asyncio.to_thread(_told, out, turn.session.roots)
        finally:
            await asyncio.to_thread(shutil.rmtree, folder, True)
        if told is None:
            return None
        # Last, how to answer: a small change of that file in the turn's format. Told to answer "with the change: the
        # file's path, then its whole content or search/replace blocks", the 1.5B wrote the path alone, twice.
        how = of(turn.settings.agent.edit_format).fix_ask.format(path=told.path)
        return Verdict(nudge=f"{told.text}\n{how}".strip(), quiet=True, kind="trace")


def _told(out: Path, roots: list[Path]) -> Told | None:
    found = read_trace(out)
    return render(*found, roots) if found is not None else None
