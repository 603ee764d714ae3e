"""What a tool's kind (ACP's `ToolKind`, declared by every tool) means to the server. Sets of tools are derived from
kinds, never listed by name: a new tool of a kind is treated as its kind says."""

from __future__ import annotations

from .. import acp

# Kinds that never change a file: no checkpoint before them, and a protected path is protected only from the others.
READ_ONLY_KINDS: frozenset[acp.ToolKind] = frozenset({"read", "search", "think", "fetch"})
# Kinds that surely change files (a successful call marks the turn as having changed something).
CHANGING_KINDS: frozenset[acp.ToolKind] = frozenset({"edit", "delete", "move"})
# A tool of this kind runs its `command` argument: the policy judges the command line, segment by segment.
RUNS_COMMANDS: acp.ToolKind = "execute"
# A tool of this kind reads its `url` argument from the network: rules and "always" answers name the URL's host.
FETCHES_URLS: acp.ToolKind = "fetch"
# Kinds that change the workspace or run programs (a profile offering none of them is read-only).
ACTING_KINDS: frozenset[acp.ToolKind] = CHANGING_KINDS | {RUNS_COMMANDS}
