"""An answer that is the server's own instructions copied back: a small model, shown "Reply with the whole new content
of each file…", sometimes answers with that sentence (and the rest of the instructions) instead of doing it. Ended
there, the user reads agent-server's prompt as the answer. Such an answer is no answer: the model is told once, in
words, and asked again; a second echo ends the turn as it is.

Only sentences the server wrote count (the instruction texts of `turn/prompts.py`, the system prompt, and the guards'
nudges the model was sent in this conversation: "`open_file` is not a tool. Your tools are: …" copied back is no
answer either), never the files it showed, the tools' results or a check's output: copying a file back is how the
files format answers, and a traceback quotes the code.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ...messages import Message
from .. import prompts
from .guard import Answer, Guard, Verdict

if TYPE_CHECKING:
    from ..turn import Turn

MIN_SENTENCE = 30  # shorter sentences ("Do not change x.") are too common to call an echo
ECHO_SHARE = 0.5  # of the answer's words, at least this share must be copied instructions
MAX_ECHO_CHARS = 20_000  # several times all the instruction texts: a longer answer is something else (or a loop)

_FIELD = re.compile(r"\{[a-z_]+\}")
_SPLIT = re.compile(r"(?<=[.:;!?])\s+|\n+")


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _sentences(text: str) -> list[str]:
    """The fixed parts of an instruction text: split at sentence ends and at its `{fields}`."""
    out = []
    for sentence in _SPLIT.split(text):
        for part in _FIELD.split(sentence):
            part = _norm(part).strip(" .,:;")
            if len(part) >= MIN_SENTENCE:
                out.append(part)
    return out


@functools.cache
def _prompt_sentences() -> frozenset[str]:
    """The fixed instruction texts' sentences: split once, not at every answer."""
    return frozenset(s for k, v in vars(prompts).items() if k.isupper() and isinstance(v, str) for s in _sentences(v))


def instruction_sentences(system_prompt: str = "", nudges: Iterable[str] = ()) -> list[str]:
    """Every sentence the server wrote to the model, longest first (a long one is taken out before its parts):
    the fixed instructions, the system prompt and the guards' `nudges` it was sent."""
    said = set(_sentences(system_prompt)).union(*(_sentences(n) for n in nudges))
    return sorted(_prompt_sentences() | said, key=len, reverse=True)


def guard_nudges(messages: Iterable[Message]) -> list[str]:
    """The guards' nudges among `messages` (never a check's output, a trace or the calls' results)."""
    return [m.content for m in messages if m.nudge == "guard" and isinstance(m.content, str)]


def is_echo(answer: str, sentences: list[str]) -> bool:
    """Whether most of `answer` is the server's own instruction sentences copied back. Runs on the event loop: an
    answer far longer than all the instructions together is no echo and is not searched (bounded work)."""
    if len(answer) > MAX_ECHO_CHARS:
        return False
    said = _norm(answer)
    if not said:
        return False
    copied = 0
    for sentence in sentences:
        if sentence in said:
            copied += len(sentence.split()) * said.count(sentence)
            said = said.replace(sentence, " ")
    total = copied + len(said.split())
    return copied > 0 and copied / total >= ECHO_SHARE


NUDGE = (
    "Your answer repeated my instructions instead of following them. Do what the request asks now: "
    "answer it, or reply with the changed file as the instructions say."
)


class EchoedInstructions(Guard):
    """The instructions copied back are no answer: the model is asked once more."""

    async def tool_free_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        said = instruction_sentences(turn.context.system_prompt, guard_nudges(turn.prompt))
        if is_echo(answer.message.content, said) and turn.take("echo", 1):
            return Verdict(nudge=NUDGE)
        return None
