"""The verify loop: when the model says it is done after changing files, run `agent.verify_command` (a card, the
normal approval rules) and give its failures back, at most `agent.verify_max` times per turn. Without a configured
command, the test command the user's request names is the check (`agent.verify_requested`, requested_check.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .checks import run_check
from .edit_formats.registry import of
from .guards.guard import Guard, Verdict
from .requested_check import session_check

if TYPE_CHECKING:
    from .turn import Turn

MAX_OUTPUT = 1500  # characters of a failing check's output given back (its end: where test runners summarize)


async def verify(turn: Turn) -> str | None:
    """The message that sends the model back to work, or None to end the turn (passed, off, nothing changed, or
    the failures were already given back `verify_max` times: the last run is still shown to the user)."""
    cfg = turn.settings.agent
    runs = turn.nudges.get("verify", 0)
    if not turn.changed or runs > cfg.verify_max:
        return None
    command = check_command(turn)
    if not command:
        return None
    turn.nudges["verify"] = runs + 1
    turn.changed = False  # verify again only after the model changes something more
    run = await run_check(turn, command, "verify")
    if run.exit_code in (0, None) or runs >= cfg.verify_max:
        return None
    output = run.output.strip()
    if len(output) > MAX_OUTPUT:
        output = "[...]\n" + output[-MAX_OUTPUT:]
    # The ask comes last, after the output, and says how to answer in the turn's edit format: told to "say you are
    # done again", a small model in the files format answered with a paragraph about the fix and wrote nothing
    # (Qwen2.5-Coder-0.5B, the tune split's isogram: the turn ended with the tests failing).
    how = of(cfg.edit_format).answer_nudge or "Then say you are done."
    return (
        f"The check `{command}` failed (exit code {run.exit_code}) after your changes:\n```\n{output}\n```\n"
        f"Fix the code so that it passes. {how}"
    )


def check_command(turn: Turn) -> str:
    """The configured check, else the one the user's request names (when `agent.verify_requested` is on)."""
    cfg = turn.settings.agent
    if command := (cfg.verify_command or "").strip():
        return command
    return (session_check(turn.session) or "") if cfg.verify_requested else ""


class VerifyCommand(Guard):
    """At the end of the turn: a failed `agent.verify_command` sends the model back to work with its output (the
    user saw it in the check's card: the nudge is not shown again)."""

    async def at_end(self, turn: Turn) -> Verdict | None:
        failed = await verify(turn)
        return None if failed is None else Verdict(nudge=failed, quiet=True, kind="verify")
