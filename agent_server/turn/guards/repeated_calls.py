"""The same tool calls, with the same arguments, again and again: small models do this until the round limit.

`CallRepeats` watches the calls of one turn in order and finds the shortest block of calls that the latest calls
repeat (up to `MAX_PERIOD` calls long):
- one call again and again (period 1): the third identical call in a row still runs, then the model gets a nudge
  that names the call; if it makes the same call once more, the turn ends (the call does not run);
- a cycle of different calls (read, edit, run the tests; read, edit, run...; a 0.5B model repeats its whole
  multi-call answer): the block once more still runs, then the nudge; a third time ends the turn.
Any call that breaks the pattern resets it. The turn ends with a note to the user and `max_turn_requests`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Literal

from ...messages import ToolCall

NUDGE_AT = 3  # the call that earns the nudge (one call repeated)
STOP_AT = NUDGE_AT + 1  # the call that ends the turn
MAX_PERIOD = 4  # the longest cycle of calls looked for (a 0.5B model's whole answer: read, edit, run)
CYCLE_NUDGE_AT = 2  # times a cycle of several calls has been made in a row when it earns the nudge
CYCLE_STOP_AT = 3

Verdict = Literal["ok", "nudge", "stop"]


def signature(call: ToolCall) -> str:
    """Name and arguments, key order and whitespace ignored."""
    return call.name + "\x00" + json.dumps(call.arguments, sort_keys=True, separators=(",", ":"), default=str)


def describe(call: ToolCall) -> str:
    args = json.dumps(call.arguments, sort_keys=True, ensure_ascii=False)
    return f"{call.name} {args if len(args) <= 120 else args[:117] + '...'}"


def _periodic_tail(sigs: list[str], period: int) -> int:
    """How many of the latest calls repeat the calls `period` before them (plus that first block)."""
    n = len(sigs)
    k = 0
    while k < n - period and sigs[n - 1 - k] == sigs[n - 1 - k - period]:
        k += 1
    return k + period if k else 0


@dataclass
class CallRepeats:
    calls: list[str] = field(default_factory=list)
    culprits: list[ToolCall] = field(default_factory=list)
    cycle: list[ToolCall] = field(default_factory=list)  # the calls of the repeated block (for the texts)
    nudge_due: ToolCall | None = None  # the call that earned the nudge, told after the calls ran (loop_guards.py)

    def check(self, calls: list[ToolCall]) -> tuple[Verdict, ToolCall | None]:
        """The verdict for a reply's calls, taken in order: "stop" if one of them repeats a call or a cycle once more
        after the nudge, "nudge" if one reaches the nudge, else "ok". The culprit is the call that did."""
        verdict: Verdict = "ok"
        culprit: ToolCall | None = None
        for call in calls:
            self.calls.append(signature(call))
            self.culprits.append(call)
            step = self._step()
            if step == "stop":
                return "stop", call
            if step == "nudge":
                verdict, culprit = "nudge", call
        return verdict, culprit

    def _step(self) -> Verdict:
        for period in range(1, MAX_PERIOD + 1):
            tail = _periodic_tail(self.calls, period)
            if not tail:
                continue
            block = self.calls[-period:]
            if period > 1 and len(set(block)) == 1:
                continue  # one call repeated: period 1 already counted it
            nudge_at, stop_at = (NUDGE_AT, STOP_AT) if period == 1 else (CYCLE_NUDGE_AT, CYCLE_STOP_AT)
            self.cycle = self.culprits[-period:]
            if tail >= stop_at * period:
                return "stop"
            if tail == nudge_at * period:
                return "nudge"
            return "ok"
        self.cycle = []
        return "ok"

    def nudge_text(self, call: ToolCall) -> str:
        if len(self.cycle) > 1:
            return (
                f"You are repeating the same {len(self.cycle)} tool calls ({_listed(self.cycle)}) that you already "
                "made just before, with the same arguments. Repeating them changes nothing. Look at their results "
                "above: if the task is done, give your answer now; otherwise do something different."
            )
        return (
            f"You have made the same tool call {NUDGE_AT} times in a row ({describe(call)}) and it gives the same "
            "result each time. Do not call it again with these arguments: use the result you already have, try a "
            "different approach, or give your answer."
        )

    def stop_note(self, call: ToolCall) -> str:
        what = (
            f"the same tool calls ({_listed(self.cycle)})"
            if len(self.cycle) > 1
            else f"the same tool call ({describe(call)})"
        )
        return (
            f"Stopped: the model kept making {what} after being told it repeats itself. "
            "Send a message to continue, or rephrase the request."
        )


def _listed(calls: list[ToolCall]) -> str:
    return "; ".join(describe(c) for c in calls)


NOT_RUN = "Not run: this is the same call as the previous ones; the turn was stopped to break the loop."
