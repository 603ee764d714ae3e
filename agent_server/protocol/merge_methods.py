"""agent/_mergeBlock: where a code block from the chat goes in a file, as an edit (tools/block_merge.py).

The editor sends the file's text as the user sees it and the block; the answer is the merged text for the editor to
show as a diff, or null when no single place was found (the editor then asks the user). Nothing is written here.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..tools.block_merge import merge_block
from .server import AgentLanguageServer, rpc

MAX_TEXT = 16_000_000  # as edit_file's limit


class MergeBlockParams(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    text: str = Field(max_length=MAX_TEXT)
    block: str = Field(max_length=MAX_TEXT)


def register(server: AgentLanguageServer) -> None:
    @rpc(server, "agent/_mergeBlock")
    async def merge(params: dict[str, Any]) -> dict[str, Any]:
        p = MergeBlockParams.model_validate(params)
        # Off the event loop: 16 MB of text and a block the model wrote take seconds to match.
        return {"text": await asyncio.to_thread(merge_block, p.text, p.block)}
