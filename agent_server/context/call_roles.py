"""What compaction makes of a tool call, by its tool's name. The tools' definitions sit a floor above this one, so
the roles are derived there (`tools/kinds.py`'s `call_roles`, from each tool's kind and `touches`) and passed in by
the turn; none of them is a name written here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CallRoles:
    """Empty: no tool is known (a tool's result then keeps its head; the notes guess a change from the name)."""

    reads_files: frozenset[str] = frozenset()  # their result is a file read (read_file's header): shrinks to an outline
    changes_files: frozenset[str] = frozenset()  # their `path` is a file modified, for the session notes
    runs_commands: frozenset[str] = frozenset()  # their `command` is a command run
    plans: frozenset[str] = frozenset()  # their `entries` are the plan: the open ones are the notes' todos
