"""What some ACP clients wrap around the text the user typed, undone before the prompt is read.

avante.nvim, continuing a session, sends no plain prompt: it sends the user's recent messages newest first, each as
`<previous_user_message>…</previous_user_message>`, then a `<system_context>` note. The newest is what the user just
typed, so a `/command` arrives wrapped and was never recognised, and every prompt repeated up to five earlier
messages the session already holds. When a prompt has exactly that shape, its text is the newest message alone.
Anything else (a prompt that merely mentions the tags, a session-recovery prompt that also carries the assistant's
messages) is left as sent.
"""

from __future__ import annotations

import re

from .. import acp

_USER = re.compile(r"\A\s*<previous_user_message>(.*)</previous_user_message>\s*\Z", re.DOTALL)
_CONTEXT = re.compile(r"\A\s*<system_context>.*</system_context>\s*\Z", re.DOTALL)


def unwrap(prompt: list[acp.ContentBlock]) -> list[acp.ContentBlock]:
    """The prompt with a wrapped history reduced to the message the user typed (the first, newest one)."""
    texts = [b for b in prompt if isinstance(b, acp.TextContent)]
    users = [m.group(1) for b in texts if (m := _USER.match(b.text))]
    if not users or any(not _USER.match(b.text) and not _CONTEXT.match(b.text) for b in texts):
        return prompt
    typed = acp.TextContent(text=users[0].strip())
    # The typed text where the first text block was; the repeated history and the note go; files and pictures stay.
    return [typed if b is texts[0] else b for b in prompt if b is texts[0] or not isinstance(b, acp.TextContent)]
