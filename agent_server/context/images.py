"""Which pictures a request carries: only the latest prompt's, so a small window does not pay for them every turn.

A picture costs the model hundreds of tokens (LLaVA 576, Gemma 3 256, Qwen2.5-VL about 1000 for a megapixel) and
its base64 is large on the wire. The user's latest prompt keeps its pictures through every round of its turn; an
older prompt's pictures become a one-line note (kept whole in the store, so a replay shows them and nothing is lost).
To a model that cannot see, no picture is sent at all.
"""

from __future__ import annotations

from dataclasses import replace

from ..llm.base import ModelInfo
from ..messages import Image, Message


def can_see(info: ModelInfo | None, setting: str) -> bool:
    """`llm.vision`: on/off as set; auto trusts the server, and a server that does not say counts as text only."""
    if setting in ("on", "off"):
        return setting == "on"
    return info is not None and info.supports_vision is True


def earlier_note(images: list[Image]) -> str:
    names = ", ".join(i.name or i.mime_type for i in images)
    return f"[{len(images)} image(s) attached here earlier ({names}); no longer shown to save the context window]"


def images_for_request(history: list[Message], vision: bool) -> list[Message]:
    """`history` as sent: pictures kept on the latest user prompt (not a nudge) only, and only when `vision`."""
    latest = next(
        (i for i in range(len(history) - 1, -1, -1) if history[i].typed_by_user),
        -1,
    )
    out: list[Message] = []
    for index, message in enumerate(history):
        if not message.images or (vision and index == latest):
            out.append(message)
            continue
        note = earlier_note(message.images) if vision else "[image(s) not sent: this model cannot see images]"
        out.append(replace(message, content=f"{message.content}\n\n{note}".strip(), images=[]))
    return out
