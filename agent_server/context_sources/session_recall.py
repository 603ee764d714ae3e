"""Skills and memory for one turn: the blocks that follow the rules in the system prompt, and the tools that go with
them (`load_skill` only when a skill is listed, `remember` only when memory is on). Without skills and with memory
off (the default) both are empty: the prompt and the tool list are what they were without this feature."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Settings
from ..context import context_window
from ..llm.base import ModelInfo
from ..messages import Message
from ..tools.base import Tool
from . import memory_prompt, skills_prompt
from .memory_tool import REMEMBER, remember_tool
from .skill_tool import LOAD_SKILL, load_skill_tool
from .skills import Refuse, discover_skills

log = logging.getLogger(__name__)
_reported: set[str] = set()  # a skipped skill file is logged once per process, not at every turn
MAX_REPORTED = 500


@dataclass
class Recall:
    text: str = ""
    """Appended to the system prompt after the rules: the skills (stable), then the notes (change as they grow)."""
    tools: list[Tool] = field(default_factory=list)
    skills: skills_prompt.SkillsBlock = field(default_factory=skills_prompt.SkillsBlock)
    memory: memory_prompt.MemoryBlock = field(default_factory=memory_prompt.MemoryBlock)


def _report(problems: list[str]) -> None:
    for problem in problems:
        if problem not in _reported and len(_reported) < MAX_REPORTED:
            _reported.add(problem)
            log.warning("skill skipped: %s", problem)


async def recall_for_turn(
    root: Path,
    settings: Settings,
    info: ModelInfo | None,
    trusted: bool,
    history: Callable[[], list[Message]],
    offers: Callable[[str], bool],
    refuse: Refuse | None = None,
) -> Recall:
    """`trusted`: the workspace is (as the rules found it this turn); `offers(tool name)`: the session's profile
    lets the model see that tool (a profile that leaves out load_skill gets no skill list either)."""
    skills_on = settings.skills.tokens > 0 and offers(LOAD_SKILL)
    memory_on = settings.memory.enabled
    if not skills_on and not memory_on:
        return Recall()
    window = context_window(info, settings.llm.context_length)
    recall = Recall()
    if skills_on:
        found, problems = await asyncio.to_thread(discover_skills, root, None, refuse)
        _report(problems)
        budget = skills_prompt.budget_for(window, settings.skills.tokens)
        recall.skills = skills_prompt.render(found, budget, trusted)
        if recall.skills.text:
            recall.tools.append(load_skill_tool(found, trusted, refuse))
    if memory_on:
        budget = memory_prompt.budget_for(window, settings.memory.tokens)
        query = memory_prompt.first_request(history())
        recall.memory = await asyncio.to_thread(memory_prompt.memory_block, root, budget, trusted, query)
        if offers(REMEMBER):
            recall.tools.append(remember_tool(root, workspace_file=trusted))
    recall.text = recall.skills.text + recall.memory.text
    return recall
