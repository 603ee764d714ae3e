"""The simple commands a shell command line runs, as text: a thin view of `shell_parse` for callers that only need
the list (the policy itself uses `parse_command`, which also says how sure it is of each one)."""

from __future__ import annotations

from pathlib import Path

from .shell_parse import PARSE_ERROR, parse_command


class UnbalancedCommandError(ValueError):
    """The command does not parse as shell (an unclosed quote or substitution, a stray keyword), so we cannot tell
    what would run."""


def split_segments(command: str) -> list[str]:
    """The simple commands in `command` (substitutions before the command holding them), in order; raises
    UnbalancedCommandError if the grammar reports an error."""
    parsed = parse_command(command, Path("/"))
    if PARSE_ERROR in parsed.doubts:
        raise UnbalancedCommandError(f"cannot parse {command!r} as shell")
    return [s.text for s in parsed.segments]
