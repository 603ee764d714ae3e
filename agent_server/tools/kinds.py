"""What a tool's kind (ACP's `ToolKind`, declared by every tool) means to the server. Sets of tools are derived from
kinds, never listed by name: a new tool of a kind is treated as its kind says."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from .. import acp

if TYPE_CHECKING:
    from ..context.call_roles import CallRoles
    from .base import Tool

# Kinds that never change a file: no checkpoint before them, and a protected path is protected only from the others.
READ_ONLY_KINDS: frozenset[acp.ToolKind] = frozenset({"read", "search", "think", "fetch"})
# Kinds that surely change files (a successful call marks the turn as having changed something).
CHANGING_KINDS: frozenset[acp.ToolKind] = frozenset({"edit", "delete", "move"})
# A tool of this kind runs its `command` argument: the policy judges the command line, segment by segment.
RUNS_COMMANDS: acp.ToolKind = "execute"
# A tool of this kind reads its `url` argument from the network: rules and "always" answers name the URL's host.
FETCHES_URLS: acp.ToolKind = "fetch"
# A tool of this kind is the model's own plan (update_plan): kept, with the loop-breaking tools, however few tools a
# request offers; its `entries` are the open todos the session notes keep.
PLANS: acp.ToolKind = "think"
# Kinds that change the workspace or run programs (a profile offering none of them is read-only).
ACTING_KINDS: frozenset[acp.ToolKind] = CHANGING_KINDS | {RUNS_COMMANDS}


def call_roles(tools: Iterable[Tool]) -> CallRoles:
    """What compaction (a floor below, which cannot read the definitions) makes of these tools' calls."""
    from ..context.call_roles import CallRoles  # here: the context package costs more to import than the kinds

    listed = list(tools)

    def having(test: Callable[[Tool], bool]) -> frozenset[str]:
        return frozenset(t.name for t in listed if test(t))

    return CallRoles(
        reads_files=having(lambda t: t.touches == "reads"),
        changes_files=having(lambda t: t.kind in CHANGING_KINDS),
        runs_commands=having(lambda t: t.kind == RUNS_COMMANDS),
        plans=having(lambda t: t.kind == PLANS),
    )
