"""The `files` edit format: the model sees the request's files in the prompt and answers with whole files or
search/replace blocks after their paths (turn/edit_blocks.py reads them as write_file / edit_file calls, which the
session wires as the turn's `recover_calls`). An answer whose blocks all applied is the edit: the turn ends there
once the end-of-turn checks pass, as in Aider."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ...messages import Message
from ...tools.base import ToolResult
from .. import prompts
from .format import AfterCalls

if TYPE_CHECKING:
    from ..turn import Turn


class FilesFormat:
    name = "files"
    edits_in_text = True
    shows_files = True
    instructions = prompts.FILES_FORMAT
    call_noun = "edit blocks"
    answer_nudge = prompts.FILES_NUDGE
    fix_ask = prompts.FILES_FIX

    def replay(self, messages: list[Message]) -> list[Message]:
        return as_files_chat(messages)

    def after_calls(self, turn: Turn, answer: Message, results: list[ToolResult]) -> AfterCalls:
        if not answer.recovered_tool_calls or not results:
            return None  # native calls (a server that parsed some anyway) are not the answer's edit
        if not any(r.is_error for r in results):
            return "done"
        if all(r.unchanged for r in results) and not turn.take("unchanged", 1):
            return "stop"  # the same file once more: another round would only copy it again
        return None


def as_files_chat(messages: list[Message]) -> list[Message]:
    """An answer whose file blocks became calls is sent back as the model wrote it, and what the calls did as the
    user's reply. Sent as native tool calls, the chat template shows the model its own answer as JSON calls, and a
    small model starts answering in JSON instead of files (seen with Qwen2.5-Coder-0.5B: every later answer a run of
    `{"name": "write_file", ...}` lines until the token cap)."""
    out: list[Message] = []
    recovered: set[str] = set()  # ids of calls read from file blocks (a native call keeps its tool message)
    for m in messages:
        if m.role == "assistant" and m.tool_calls and m.recovered_tool_calls:
            recovered.update(c.id for c in m.tool_calls)
            out.append(replace(m, tool_calls=[]))
        elif m.role == "tool" and m.tool_call_id in recovered:
            if out and out[-1].nudge == "results":  # one reply for all the blocks of one answer
                out[-1] = replace(out[-1], content=f"{out[-1].content}\n{m.content}")
            else:
                out.append(Message(role="user", content=m.content, nudge="results"))
        else:
            out.append(m)
    return out
