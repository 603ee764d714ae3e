"""As a turn ends: a turn asked to fix a failing test that left the tests of that test's files worse than it found
them (a test that passed no longer does, or the run no longer finishes) puts the files it changed back.

A small model's edit can break what worked: on issue 37's repository tasks the 1.5B's search/replace edit emptied a
cache class, and the library's suite then hung. A user who asked to fix one test is not helped by a turn that leaves
more broken; the diff of what the turn tried stays in the chat. Only Python files that existed before the turn are
compared (imported in place of the changed ones by the trial driver's overlay, `--compare`) and put back, each with
an ordinary `write_file` (its diff and approval); a file the turn created is left.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ... import acp
from ...messages import Message, ToolCall
from ...tools.sandbox import relative
from ..checks import run_check
from ..fix_trials import compare_command, files_command
from ..requested_check import check_to_fix
from ..tool_step import run_tool_call
from .guard import Guard

if TYPE_CHECKING:
    from ..turn import StopReason, Turn

RUN_TIMEOUT_S = 120.0  # one run of the named tests' files (the run with the turn's changes: five times the first's)


class NoWorse(Guard):
    async def at_close(self, turn: Turn, stop: StopReason) -> None:
        if not turn.settings.agent.no_worse or not turn.originals or turn.changes_tried:
            return
        command = check_to_fix(turn.session)
        files = files_command(command) if command else None
        changed = await asyncio.to_thread(_changed, turn.originals) if files else None
        if files is None or not changed:
            return  # no failing test named, nothing changed, or a change this cannot compare (a new or non-Python file)
        folder = Path(tempfile.mkdtemp(prefix="agent-server-compare-"))  # outside the workspace
        try:
            await asyncio.to_thread(_write_before, folder, changed)
            compare = compare_command(sys.executable, folder, files[0])
            run = await run_check(turn, compare, "compare", timeout_s=RUN_TIMEOUT_S * 7)
        finally:
            await asyncio.to_thread(shutil.rmtree, folder, True)
        rows = run.output.strip().splitlines()
        if not rows or rows[-1].strip() != "worse":
            return
        back = []
        for path, content in changed.items():
            rel = relative(turn.session.roots, path)
            call = ToolCall(
                id=f"back_{os.urandom(4).hex()}", name="write_file", arguments={"path": rel, "content": content}
            )
            result = await run_tool_call(turn, call)
            if not result.is_error and result.rejected is None:
                back.append(rel)
        if back:
            how = "; ".join(r.strip() for r in rows[:2])
            they = "it is back as it was" if len(back) == 1 else "they are back as they were"
            text = f"\n\nWith these changes `{files[0]}` is worse than before ({how}): {', '.join(back)}: {they}."
            await turn.relay.send(acp.AgentMessageChunk(content=acp.TextContent(text=text)))
            await turn.record(Message(role="assistant", content=text.strip()))


def _changed(originals: dict[Path, bytes | None]) -> dict[Path, str] | None:
    """The files the turn changed, with what they held before; None when one of them cannot be compared (it did not
    exist, it is not Python, it is not text)."""
    out: dict[Path, str] = {}
    for path, before in originals.items():
        try:
            now = path.read_bytes() if path.is_file() else None
        except OSError:
            return None
        if now == before:
            continue
        if before is None or path.suffix != ".py":
            return None
        try:
            out[path] = before.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return out


def _write_before(folder: Path, changed: dict[Path, str]) -> None:
    (folder / "before.json").write_text(json.dumps({str(p.resolve()): s for p, s in changed.items()}), encoding="utf-8")
    (folder / "trials.json").write_text(json.dumps({"timeout_s": RUN_TIMEOUT_S}), encoding="utf-8")
