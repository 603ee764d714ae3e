"""The rules of one turn: the block for the system prompt and the scoped rules' after-tool step."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from ..config import Settings
from ..context import context_window
from ..llm.base import ModelInfo
from ..messages import Message
from .rules_prompt import RulesBlock, RulesCache, budget_for
from .scoped import ScopedRules

WORKSPACE_FILE = ".agent-server.toml"


def workspace_trusted(db_path: Path, root: Path) -> bool:
    """Trusted as `.agent-server.toml` is: the user trusted this workspace with the file's current content.
    A workspace without that file was never trusted, so its rules speak as the repository's."""
    from ..errors import AgentServerError
    from ..trust import file_digest, is_trusted

    config = root / WORKSPACE_FILE
    try:
        return config.is_file() and is_trusted(db_path, root.resolve(), file_digest(config)) == "trusted"
    except (OSError, AgentServerError):
        return False


async def rules_for_turn(
    cache: RulesCache,
    root: Path,
    settings: Settings,
    info: ModelInfo | None,
    db_path: Path,
    history: Callable[[], list[Message]],
) -> tuple[RulesBlock, ScopedRules]:
    window = context_window(info, settings.llm.context_length)
    budget = budget_for(window, settings.context.rules_tokens)
    trusted = await asyncio.to_thread(workspace_trusted, db_path, root)
    block, rules = await asyncio.to_thread(cache.get, root, budget, trusted)
    return block, ScopedRules(root=root, rules=rules, budget=budget, trusted=trusted, history=history)


def meter_meta(block: RulesBlock) -> dict[str, object] | None:
    """What the context meter shows about the rules (`_meta` of usage updates)."""
    if not block.files and not block.cut:
        return None
    return {"agentServer": {"rules": {"tokens": block.tokens, "files": block.files, "cut": block.cut}}}
