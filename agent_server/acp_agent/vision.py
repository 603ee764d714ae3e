"""`promptCapabilities.image` at `initialize`: true only when the model the agent will use can see pictures.

ACP states prompt capabilities once, before any session, so the model is asked here (a local GET or two, bounded
by PROBE_S). `llm.vision = on/off` answers without asking; the built-in model (started on first use, no projector)
is text only; a server that cannot be reached or does not say counts as text only. A picture that arrives anyway
(the model changed since) is still handled: a text-only model does not get it and the user is told.
"""

from __future__ import annotations

import asyncio
import logging

from ..config import Settings
from ..context.images import can_see

log = logging.getLogger(__name__)
PROBE_S = 5.0


async def model_sees(settings: Settings) -> bool:
    llm = settings.llm
    if llm.vision != "auto":
        return llm.vision == "on"
    if llm.provider == "embedded":
        return False
    from ..llm.registry import open_provider  # httpx: only when asked

    try:
        provider, model, info = await asyncio.wait_for(open_provider(settings), PROBE_S)
    except Exception as exc:  # down, slow or misconfigured: the first prompt says so; no pictures meanwhile
        log.info("image support unknown (%s): not advertised", exc)
        return False
    await provider.aclose()
    log.info("%s %s images", model, "reads" if can_see(info, "auto") else "does not read")
    return can_see(info, "auto")
