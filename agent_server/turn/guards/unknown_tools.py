"""An answer that is a call of something that is not a tool (`{"name": "add", ...}` where add is a function in the
user's file): never the turn's answer. The model gets a short nudge naming the real tools; the call counts toward the
repeated-call guard, so the same wrong call again and again ends the turn like any repeated call."""

from __future__ import annotations

from ...llm.text_tools import call_shaped
from ...messages import ToolCall

MAX_NUDGES = 3
SHOWN_TOOLS = 12


def unknown_calls(text: str, offered: set[str]) -> list[ToolCall]:
    return [c for c in call_shaped(text) if c.name not in offered]


def nudge_text(calls: list[ToolCall], offered: set[str]) -> str:
    wrong = ", ".join(sorted({f"`{c.name}`" for c in calls}))
    tools = ", ".join(sorted(offered)[:SHOWN_TOOLS])
    return (
        f"{wrong} is not a tool. Your tools are: {tools}. Call one of them with its arguments, or, if you have what "
        "you need, answer in plain words."
    )


def stop_note(calls: list[ToolCall]) -> str:
    wrong = ", ".join(sorted({f"`{c.name}`" for c in calls}))
    return (
        f"Stopped: the model kept calling {wrong}, which is not a tool, after being told so. Send a message to "
        "continue, or rephrase the request (naming the file to read helps)."
    )
