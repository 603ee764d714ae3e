"""The guards a turn runs, in order: at each hook point (guard.py) they are asked in this order, so a guard's place
here is its place at every point it implements. Adding a guard is its module and its line here."""

from __future__ import annotations

from ..verify import VerifyCommand
from .answer_checks import AnnouncedStep, CutShort, Deflection, EmptyAnswers, FormatNudge, TaskReminder
from .dropped_tools import DroppedTools
from .echoed_instructions import EchoedInstructions
from .failure_trace import FailureTrace
from .fix_trials import FixTrials
from .guard import Guard
from .insist_on_tool import InsistOnTool
from .loop_guards import LookedBefore, LoopingStream, RepeatingCalls
from .no_worse import NoWorse
from .resample import Resample
from .text_call_cap import TextCallCap
from .unknown_tools import UnknownTools
from .unlooked_files import UnlookedFiles

GUARDS: list[Guard] = [
    FixTrials(),  # at the start: a failing test the request names, one-line rewrites tried against it; one works: done
    FailureTrace(),  # at the start: a failing test the request names, traced: its last call and the lines it ran
    Resample(),  # after the calls (first: it never ends a point): a file sent back unchanged, the next request sampled
    InsistOnTool(),  # before the request: a tool call required after a nudge to use one
    DroppedTools(),  # after the reply: the server dropped the tools, switch to prompt tools and ask again
    LoopingStream(),  # after the answer: a looping stream, cut, ends the turn
    RepeatingCalls(),  # before the calls: the 4th identical call ends the turn; after them: the 3rd is nudged
    LookedBefore(),  # after a tool result: the same look again gets a pointer to the result it has
    TextCallCap(),  # after the calls: more calls than agent.max_text_calls, the rest are asked for again
    UnknownTools(),  # a tool-free answer: a call of a name that is not a tool
    CutShort(),  # a tool-free answer cut at the token limit ends the turn
    EmptyAnswers(),  # an empty answer (its count starts again after calls or words)
    EchoedInstructions(),  # the instructions copied back
    FormatNudge(),  # the edit format's own nudge (files: answer with the change)
    Deflection(),  # "I cannot access files"
    UnlookedFiles(),  # named files answered about without reading them
    AnnouncedStep(),  # work announced and not done
    TaskReminder(),  # a task session ends with task_completion
    VerifyCommand(),  # at the end: agent.verify_command's failures go back to the model
    NoWorse(),  # as the turn ends: the named failing test's files left worse than found: the changed files put back
]
