"""Skills as slash commands: `/name [arguments]` loads the skill into the user's own message, listed beside the
custom commands in every face. Like a custom command it is the user's act: the text becomes their message and
grants nothing. A custom command file of the same name keeps it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .commands import CustomCommand
from .skills import Refuse, Skill, discover_skills
from .skills_prompt import loaded_text


@dataclass(frozen=True)
class SkillCommand(CustomCommand):
    skill: Skill | None = None


def skill_commands(root: Path, refuse: Refuse | None = None, user_dir: Path | None = None) -> list[SkillCommand]:
    """One command per skill (blocking: lists the skill folders)."""
    skills, _problems = discover_skills(root, user_dir, refuse)  # logged where the turn lists them (session_recall)
    return [
        SkillCommand(name=s.name, description=s.description, hint=None, body="", source=s.label, skill=s)
        for s in skills
    ]


def skill_prompt(command: SkillCommand, arguments: str) -> str:
    """The message `/name arguments` sends (blocking: reads the skill now). Only `$ARGUMENTS` is replaced (a skill's
    shell examples are full of `$1`); without it the arguments follow the skill."""
    assert command.skill is not None
    text = loaded_text(command.skill, trusted=True)
    if "$ARGUMENTS" in text:
        return text.replace("$ARGUMENTS", arguments)
    return f"{text}\n\n{arguments}" if arguments else text
