"""Pictures in a prompt: ACP `image` blocks checked and turned into `Image`s, and whether the model may see them.

A picture is checked before a turn starts: its base64 must decode, its bytes must be a PNG, JPEG, GIF or WebP (by
their magic bytes, whatever mime type the client claimed) and stay under `llm.image_max_bytes`. A bad one fails the
prompt with a clear error (-32602) and nothing else happens. A good one goes to a model that can see
(`supports_vision`, or `llm.vision = "on"`); to a text-only model it is not sent, the user is told why in the chat
and the model gets a short note in its place.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable

from .. import acp
from ..client_contract import AgentClient
from ..config import LLMConfig
from ..context.images import can_see
from ..errors import AgentServerError, InvalidParamsError
from ..llm.base import ModelInfo, Provider
from ..messages import Image


def sniff(raw: bytes) -> str | None:
    """The mime type the bytes are, or None for anything but the four formats every vision server reads."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if raw.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if raw.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp"
    return None


def checked_image(data: str, claimed: str, limit: int, name: str = "") -> Image:
    """One picture, or InvalidParamsError saying what is wrong with it."""
    label = f"image {name}" if name else "image"
    data = "".join(data.split())  # line-wrapped base64 is still base64
    if data.startswith("data:") and ";base64," in data:
        data = data.split(";base64,", 1)[1]  # a data URL where bare base64 was expected
    if len(data) * 3 // 4 > limit + 3:
        raise InvalidParamsError(
            f"{label} is about {len(data) * 3 // 4} bytes, over the limit of {limit} (llm.image_max_bytes)"
        )
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidParamsError(f"{label}: its data is not valid base64 ({exc})") from exc
    if not raw:
        raise InvalidParamsError(f"{label} is empty")
    if len(raw) > limit:
        raise InvalidParamsError(f"{label} is {len(raw)} bytes, over the limit of {limit} (llm.image_max_bytes)")
    mime = sniff(raw)
    if mime is None:
        claimed_as = f" (sent as {claimed})" if claimed else ""
        raise InvalidParamsError(f"{label}{claimed_as} is not a PNG, JPEG, GIF or WebP picture")
    return Image(mime_type=mime, data=base64.b64encode(raw).decode("ascii"), name=name)


def prompt_images(blocks: list[acp.ContentBlock], limit: int) -> list[Image]:
    """The prompt's image blocks, each checked (the first bad one raises)."""
    out: list[Image] = []
    for block in blocks:
        if isinstance(block, acp.ImageContent):
            name = block.uri.rsplit("/", 1)[-1] if block.uri else ""
            out.append(checked_image(block.data, block.mime_type, limit, name))
    return out


def not_sent_notice(model: str, count: int) -> str:
    """What the user reads in the chat when their pictures stay behind."""
    what = "image not sent" if count == 1 else f"{count} images not sent"
    return (
        f"[{what}: {model or 'the model'} has no vision support. Choose a vision model (one whose server reports "
        "vision: an Ollama model with the vision capability, llama.cpp started with --mmproj, an LM Studio VLM), "
        'or set llm.vision = "on" if this server can read images but does not say so.]'
    )


def model_note(images: list[Image]) -> str:
    """What a text-only model reads instead of the pictures, so it does not answer as if it had seen them."""
    names = ", ".join(i.name or i.mime_type for i in images)
    return f"[The user attached {len(images)} image(s) ({names}) that were not sent: this model cannot see images.]"


async def attach(
    text: str,
    images: list[Image],
    llm: LLMConfig,
    resolve: Callable[[AgentClient], Awaitable[tuple[Provider, str, ModelInfo | None]]],
    client: AgentClient,
    session_id: str,
) -> tuple[str, list[Image]]:
    """The user message's text and pictures: as they are for a model that can see; else the pictures stay behind,
    the user is told in the chat and the model reads a note in their place."""
    if not images:
        return text, images
    model, info = llm.model or "", None
    try:
        _provider, model, info = await resolve(client)
    except AgentServerError:  # the server is down: the turn reports it; the pictures are not sent meanwhile
        pass
    if can_see(info, llm.vision):
        return text, images
    notice = acp.TextContent(text=not_sent_notice(model, len(images)) + "\n\n")
    await client.session_update(session_id, acp.AgentMessageChunk(content=notice))
    return f"{text}\n\n{model_note(images)}".strip(), []
