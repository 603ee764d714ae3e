"""The same tool call, with the same arguments, again and again: small models do this until the round limit.

`CallRepeats` watches the calls of one turn in order. The third identical call in a row still runs, then the model gets
a nudge that names the call; if it makes the same call once more, the turn ends (the call does not run) with a note to
the user. Any different call resets the count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from ...messages import ToolCall

NUDGE_AT = 3  # the call that earns the nudge
STOP_AT = NUDGE_AT + 1  # the call that ends the turn

Verdict = Literal["ok", "nudge", "stop"]


def signature(call: ToolCall) -> str:
    """Name and arguments, key order and whitespace ignored."""
    return call.name + "\x00" + json.dumps(call.arguments, sort_keys=True, separators=(",", ":"), default=str)


def describe(call: ToolCall) -> str:
    args = json.dumps(call.arguments, sort_keys=True, ensure_ascii=False)
    return f"{call.name} {args if len(args) <= 120 else args[:117] + '...'}"


@dataclass
class CallRepeats:
    last: str | None = None
    streak: int = 0

    def check(self, calls: list[ToolCall]) -> tuple[Verdict, ToolCall | None]:
        """The verdict for a reply's calls, taken in order: "stop" if one of them is the fourth identical call in a row
        (the model was nudged at the third), "nudge" if one is the third, else "ok"."""
        verdict: Verdict = "ok"
        culprit: ToolCall | None = None
        for call in calls:
            sig = signature(call)
            self.streak = self.streak + 1 if sig == self.last else 1
            self.last = sig
            if self.streak >= STOP_AT:
                return "stop", call
            if self.streak == NUDGE_AT:
                verdict, culprit = "nudge", call
        return verdict, culprit


def nudge_text(call: ToolCall) -> str:
    return (
        f"You have made the same tool call {NUDGE_AT} times in a row ({describe(call)}) and it gives the same result "
        "each time. Do not call it again with these arguments: use the result you already have, try a different "
        "approach, or give your answer."
    )


def stop_note(call: ToolCall) -> str:
    return (
        f"Stopped: the model kept making the same tool call ({describe(call)}) after being told it repeats itself. "
        "Send a message to continue, or rephrase the request."
    )


NOT_RUN = "Not run: this is the same call as the previous ones; the turn was stopped to break the loop."
