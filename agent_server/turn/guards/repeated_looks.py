"""A look the model already took: the same read or search call again, with nothing changed since.

A small model that does not know what to do next reads the file it just read (the real_llm lane's Qwen 0.5B read
calc.py 17 times in 10 rounds). Sending the whole file again makes each prompt longer and tells it nothing new. So
when a read or search call repeats an earlier call of this turn with the same arguments, the call still runs (it is
cheap and local, and it is the only honest way to know nothing changed), and if its result is the same text as then
and that result is still in the prompt the model just saw, the model gets a short note pointing to it instead. The
repeated-call guard (repeated_calls.py) counts the call like any other, so a model that keeps looking is still
nudged and stopped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...messages import Message, ToolCall
from .repeated_calls import describe, signature

KINDS = {"read", "search"}  # tools that only look: the same call with the same result is the same look


def unchanged_note(call: ToolCall, round_: int) -> str:
    return (
        f"Unchanged: you made this same call ({describe(call)}) in round {round_} of this task and its result, "
        "above, is still exactly current. Do not make this call again. Use that result now: make the change the "
        "task needs with your tools, or give your answer."
    )


@dataclass
class RepeatedLooks:
    # signature -> (the round it was made in, its result text)
    seen: dict[str, tuple[int, str]] = field(default_factory=dict)

    def result(self, call: ToolCall, kind: str, text: str, round_: int, prompt: list[Message]) -> str:
        """The text the model gets for this look: the short note when it saw this very result already, else `text`
        (remembered for next time)."""
        if kind not in KINDS:
            return text
        sig = signature(call)
        earlier = self.seen.get(sig)
        if earlier is not None and earlier[1] == text and _in_prompt(text, prompt):
            return unchanged_note(call, earlier[0])
        self.seen[sig] = (round_, text)
        return text


def _in_prompt(text: str, prompt: list[Message]) -> bool:
    """The earlier result is still whole in the last request (not pruned, shrunk or compacted away)."""
    return any(m.role in ("tool", "user") and text in m.content for m in prompt)
