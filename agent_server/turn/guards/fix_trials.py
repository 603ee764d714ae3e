"""Before the first answer to "running `pytest t.py::test_x` fails": one-line fixes of the lines the failing test ran,
each written by the model and tried against the tests before anything is written (`fix_trials.py`,
`agent.fix_trials`). The first that makes the named tests pass, breaking none, is proposed as an ordinary
write_file (the diff, the approval) and ends the turn; when none works, the turn goes on as if nothing was tried.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ... import acp
from ...errors import SandboxError
from ...llm.base import ChatRequest, GenerationOptions
from ...messages import Message, ToolCall
from ...tools.command import MAX_TIMEOUT_S
from ...tools.sandbox import read_regular, resolve
from ..checks import run_check
from ..failure_path import MAX_SOURCE, Call
from ..fix_mutants import Variants, mutants
from ..fix_spectrum import ranked, read_spectrum
from ..fix_trials import (
    Planned,
    Rewrite,
    Unit,
    ask,
    candidates,
    failure_excerpt,
    files_command,
    trial_command,
    units,
    winner,
)
from ..model_call import text_of
from ..requested_check import check_to_fix
from ..tool_step import run_tool_call
from .failure_trace import trace_failing
from .guard import Guard, Verdict

if TYPE_CHECKING:
    from ..turn import Turn

log = logging.getLogger(__name__)

MAX_ANSWER_TOKENS = 96  # a line or three of code; a longer answer is the function copied back
MAX_NESTED_FUNCTIONS = 3  # functions the failing call called, whose lines are tried after its own
TRIAL_TIMEOUT_S = 60.0  # one run of the named tests' files
VERSIONS = 3  # rewrites of each line asked for in the second round


@dataclass
class Tried:
    """A candidate written for the trial: the statement it rewrites, in which file, and the rewrite."""

    unit: Unit
    path: Path
    rewrite: Rewrite


class FixTrials(Guard):
    async def at_start(self, turn: Turn) -> Verdict | None:
        limit = turn.settings.agent.fix_trials
        command = check_to_fix(turn.session) if limit else None
        files = files_command(command) if command else None
        if command is None or files is None:
            return None
        folder = Path(tempfile.mkdtemp(prefix="agent-server-fix-"))  # outside the workspace: nothing left in it
        try:
            return await _try(turn, command, files, folder, limit)
        finally:
            await asyncio.to_thread(shutil.rmtree, folder, True)


async def _try(turn: Turn, command: str, files: tuple[str, list[str]], folder: Path, limit: int) -> Verdict | None:
    failing = await trace_failing(turn, command, folder)
    if failing is None:
        return None
    full = await asyncio.to_thread(_plan, failing.calls, turn.session.roots)
    plan = full[:limit]
    spent = await asyncio.to_thread(_fingerprint, command, plan)  # (modules of thousands of lines: off the loop)
    if spent in turn.session.fix_trials_spent:
        await _say(turn, "the one-line fixes of these lines were tried on this code before, and none worked")
        return None
    excerpt = failure_excerpt(failing.output)
    tried: list[Tried] = []
    fix = None
    focus = _Focus(folder, full, limit, turn.settings.agent.fix_spectrum)
    # First a rewrite of each line; when none worked, the lines' one-token variants (no model time, a second or so of
    # tests each); then three rewrites of each line (more to generate, more to try): asked for one, the 1.5B often
    # wrote the line at fault back unchanged. The later rounds take the lines the first trial's baseline found most
    # suspicious (`fix_spectrum.py`): a helper's line, or one low in a long function, can be among them.
    rounds: list[Callable[[], Awaitable[list[Tried]]]] = [
        lambda: _rewrites(turn, command, excerpt, plan, 1, tried),
        lambda: focus.then(lambda lines: _mutants(turn, lines, tried)),
        lambda: focus.then(lambda lines: _rewrites(turn, command, excerpt, lines, VERSIONS, tried)),
    ]
    for round_ in rounds:
        new = await round_()
        if not new:
            continue
        fix = await _trial(turn, folder, command, files, tried, new, focus.to_record())
        if fix is not None:
            break
    if fix is None:
        turn.session.fix_trials_spent.add(spent)
        return None
    arguments = {"path": fix.unit.file, "content": fix.rewrite.source}
    write = ToolCall(id=f"fix_{os.urandom(4).hex()}", name="write_file", arguments=arguments)
    result = await run_tool_call(turn, write)
    if result.is_error or result.rejected is not None:
        return None
    turn.changes_tried = True  # the trial ran the named tests' files with it: nothing of theirs it broke
    text = (
        f"The change: {fix.unit.file} {fix.unit.where} is now `{fix.rewrite.shown}`. With it, `{command}` passes, "
        f"and no other test of `{files[0]}` that passed before fails."
    )
    await turn.relay.send(acp.AgentMessageChunk(content=acp.TextContent(text=text)))
    await turn.record(Message(role="assistant", content=text))
    return Verdict(stop="end_turn")


async def _rewrites(
    turn: Turn, command: str, excerpt: str, plan: list[Planned], versions: int, tried: list[Tried]
) -> list[Tried]:
    """`versions` rewrites of each planned statement asked for: the new candidates (added to `tried`)."""
    new: list[Tried] = []
    for call, path, source, unit in plan:
        # (Both parse the whole file: in a thread, as a module of thousands of lines takes a while.)
        messages = await asyncio.to_thread(ask, command, excerpt, call, source, unit, versions)
        answer = await _answer(turn, messages, MAX_ANSWER_TOKENS * versions)
        for rewrite in await asyncio.to_thread(candidates, source, unit, answer, versions):
            if any(t.rewrite.source == rewrite.source for t in tried):
                continue
            new.append(Tried(unit, path, rewrite))
            tried.append(new[-1])
            await _say(turn, f"a candidate for {unit.file} {unit.where}: `{rewrite.shown}`")
    return new


async def _mutants(turn: Turn, plan: list[Planned], tried: list[Tried]) -> list[Tried]:
    """The planned lines' one-token variants not tried yet (`fix_mutants.py`): every line's operator edits first,
    then their swapped variables, then their negated tests, at most `agent.fix_mutants` in all."""
    limit = turn.settings.agent.fix_mutants
    if not limit:
        return []
    made = await asyncio.to_thread(lambda: [(path, unit, _variants(source, unit)) for _c, path, source, unit in plan])
    ordered = [Tried(u, p, r) for tier in range(3) for p, u, variants in made for r in variants[tier]]
    known = {t.rewrite.source for t in tried}
    new = [t for t in ordered if t.rewrite.source not in known][:limit]
    tried += new
    if new:
        await _say(turn, f"{len(new)} one-token variants of those lines (comparisons, bounds, negations, names)")
    return new


def _variants(source: str, unit: Unit) -> Variants:
    """The unit's variants; none when the code defeats their maker (deeply nested, odd): the turn goes on without."""
    try:
        return mutants(source, unit)
    except (RecursionError, ValueError, IndexError, MemoryError):
        log.warning("no one-token variants of %s %s", unit.file, unit.where, exc_info=True)
        return Variants([], [], [])


class _Focus:
    """The statements the later rounds try: the plan's first `limit`, or, once a trial's baseline recorded which
    lines the tests ran (`spectrum.json`), the `limit` most suspicious of them and their files' other lines."""

    def __init__(self, folder: Path, full: list[Planned], limit: int, rank: bool) -> None:
        self.folder, self.full, self.limit = folder, full, limit
        # whose lines the first baseline records (none: `agent.fix_spectrum` off, the plan's order stays)
        self.files = sorted({str(p.resolve()) for _c, p, _s, _u in full}) if rank else []
        self.recorded = False  # a trial ran (its baseline recorded them)
        self._ranked: list[Planned] | None = None

    def to_record(self) -> list[str]:
        """The files the next trial's baseline records the lines of: only the first trial's (later ones rerun the
        same tests, which run the same lines)."""
        files = [] if self.recorded else self.files
        self.recorded = True
        return files

    async def then(self, step: Callable[[list[Planned]], Awaitable[list[Tried]]]) -> list[Tried]:
        if self._ranked is None and self.recorded and self.files:
            self._ranked = await asyncio.to_thread(self._read)
        return await step((self._ranked or self.full)[: self.limit])

    def _read(self) -> list[Planned] | None:
        spectrum = read_spectrum(self.folder / "spectrum.json")
        return None if spectrum is None else ranked(self.full, spectrum)


async def _trial(
    turn: Turn,
    folder: Path,
    command: str,
    files: tuple[str, list[str]],
    tried: list[Tried],
    new: list[Tried],
    spectrum: list[str],
) -> Tried | None:
    """Try `new` candidates against the named tests' files, one command: the first that works, or None (with
    `spectrum`, the baseline records those files' lines each test ran)."""
    await asyncio.to_thread(_write_trials, folder, tried, new, files[1], spectrum)
    timeout = min(TRIAL_TIMEOUT_S * (len(new) + 1), MAX_TIMEOUT_S)  # (a hundred variants: a run_command's longest)
    first = command if files[1] else None  # node ids named: those alone first, the files only for who passes them
    run = await run_check(turn, trial_command(sys.executable, folder, files[0], first), "trial", timeout_s=timeout)
    # Only a candidate of this round counts: the command's output is the run's, and the project's code runs in it.
    won = winner(run.output)
    names = {f"{tried.index(t)}.json": t for t in new}
    return names.get(won) if won is not None else None


def _plan(calls: list[Call], roots: list[Path]) -> list[Planned]:
    """The lines to rewrite, in order: the failing call's own statements, then those of the calls it made."""
    entry = max((i for i, c in enumerate(calls) if c.entry), default=None)
    if entry is None:
        return []
    seen: set[tuple[str, int]] = set()
    out: list[Planned] = []
    for call in [calls[entry], *calls[entry + 1 :]]:
        if (call.file, call.first_line) in seen or len(seen) > MAX_NESTED_FUNCTIONS:
            continue
        seen.add((call.file, call.first_line))
        try:
            path = resolve(roots, call.file)
            source = read_regular(path, MAX_SOURCE).decode("utf-8")
        except (OSError, SandboxError, UnicodeDecodeError):
            continue
        out += [(call, path, source, unit) for unit in units(source, call)]
    return out


def _fingerprint(command: str, plan: list[Planned]) -> str:
    """The command and the code its failing call ran, as one digest: the same digest, the same trials."""
    digest = hashlib.sha256(command.encode())
    sources = {}
    for _call, path, source, unit in plan:
        digest.update(f"\0{path}\0{unit.where}".encode())
        sources[path] = source
    for path, source in sorted(sources.items()):
        digest.update(f"\0{path}\0{source}".encode())
    return digest.hexdigest()


def _write_trials(folder: Path, tried: list[Tried], new: list[Tried], named: list[str], spectrum: list[str]) -> None:
    """Each new candidate as `<its index in tried>.json`, and the spec naming them (and the files whose lines the
    baseline records)."""
    names = []
    for t in new:
        names.append(f"{tried.index(t)}.json")
        (folder / names[-1]).write_text(json.dumps({str(t.path.resolve()): t.rewrite.source}), encoding="utf-8")
    spec = {"named": named, "candidates": names, "timeout_s": TRIAL_TIMEOUT_S, "spectrum": spectrum}
    (folder / "trials.json").write_text(json.dumps(spec), encoding="utf-8")


async def _answer(turn: Turn, messages: list[Message], max_tokens: int) -> str:
    """One short answer of the turn's model, not streamed into the chat (the candidates it makes are shown instead)."""
    options = GenerationOptions(
        temperature=turn.settings.llm.temperature,
        max_tokens=max_tokens,
        num_ctx=turn.context.window,
        think=False,
    )
    return await text_of(turn.provider, ChatRequest(model=turn.model, messages=messages, options=options))


async def _say(turn: Turn, text: str) -> None:
    await turn.relay.send(acp.AgentThoughtChunk(content=acp.TextContent(text=f"\n[agent-server: {text}]\n")))
