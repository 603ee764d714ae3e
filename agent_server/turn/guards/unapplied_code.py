"""A tool-free answer that shows code but changed nothing: asked to fix something, a small model often writes the
fixed function into its answer ("Here is the updated code: ```python ...```") and stops, the files as they were (seen
with Qwen2.5-Coder-0.5B and 1.5B given tool calls: the turn was one model call and the task failed). It is told that
nothing was changed and to make the change with its tools, and the next request requires a tool call (InsistOnTool).

Only for a request that asks for a change (context/request_kind.py: "explain", "how do I ..." are answered in words,
code included), where edits are tool calls (a format that reads its edits from the answer's text has applied them
already), in a turn that can change files, while nothing was changed in it, and only for code: a command to run, a
program's output or a tool call written as JSON is not a change left unmade."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...context.request_kind import wants_edit
from ...tools.kinds import EDITS
from .. import prompts
from .guard import Answer, Guard, Verdict
from .unlooked_files import request_and_tools

if TYPE_CHECKING:
    from ..turn import Turn

FENCE = re.compile(r"```([\w+#.-]*)[^\n]*\n(.*?)```", re.S)
# Blocks that show what to run or what came out, not a change to a file.
NOT_CODE = {"", "text", "txt", "plaintext", "console", "shell", "sh", "bash", "zsh", "ps", "powershell", "cmd",
            "output", "log", "json", "pytest", "terminal"}  # fmt: skip
# A block without a language counts as code only when a line looks like a definition or an assignment.
CODE_LINE = re.compile(r"^\s*(def |class |async def |function |import |from \S+ import |return\b|\w+\s*=[^=])", re.M)
MIN_LINES = 2


def shows_code(text: str) -> bool:
    for language, body in FENCE.findall(text):
        lines = [line for line in body.splitlines() if line.strip()]
        if len(lines) < MIN_LINES:
            continue
        if language.lower() not in NOT_CODE or (not language and CODE_LINE.search(body)):
            return True
    return False


class UnappliedCode(Guard):
    async def tool_free_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        if answer.format.edits_in_text or turn.changed or not shows_code(answer.message.content):
            return None
        request, _ = request_and_tools(turn.session.history)
        if not wants_edit(request):
            return None
        editors = sorted(n for n in turn.tools.names() if (t := turn.tools.get(n)) is not None and t.kind == EDITS)
        if not editors or not turn.take("unapplied", turn.settings.agent.continuation_nudges):
            return None
        return Verdict(nudge=prompts.UNAPPLIED_NUDGE.format(tools=" or ".join(editors)), require_tool=True)
