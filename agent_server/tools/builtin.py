"""The built-in tools: BUILTINS lists every definition (tools/definition.py), in the order the model is offered them.

A new built-in tool is a module with its `BuiltinTool` subclass and a line here (and its name in names.py, which the
settings check rule names against before any tool is imported). Every set of tools the server needs is derived from
the definitions: the default policies (trust.py), what reads or writes files (the hot-context note, the lint watch),
what changes things (a profile's read-only flag); the policy and the permission request read each tool's own kind
and preview.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import acp
from ..config import Settings, ToolsConfig
from .base import Policy, Tool
from .code_nav import CODE_TOOLS
from .codebase import CodebaseSearch
from .command import RunCommand
from .definition import BuiltinTool
from .editing import EditFile, WriteFile
from .planning import AskQuestion, TaskCompletion, UpdatePlan
from .reading import ListDirectory, ReadFile
from .search import FindFiles, SearchText
from .spill import ReadOutput
from .web_fetch import WebFetch

Definition = type[BuiltinTool[Any]]

BUILTINS: list[Definition] = [
    ReadFile,
    ListDirectory,
    FindFiles,
    SearchText,
    CodebaseSearch,
    WriteFile,
    EditFile,
    RunCommand,
    UpdatePlan,
    WebFetch,
    AskQuestion,
    TaskCompletion,
    ReadOutput,  # offered with the tools whose long results it pages (registry.py), not on its own
]


def _tools_config(config: ToolsConfig | Settings | None) -> ToolsConfig:
    if isinstance(config, Settings):
        return config.tools
    return config or ToolsConfig()


def builtin_tools(config: ToolsConfig | Settings | None = None) -> list[Tool]:
    """Every built-in tool a session offers, configured from the `tools.*` settings (whole Settings are accepted)."""
    cfg = _tools_config(config)
    return [definition(cfg).tool() for definition in BUILTINS if definition.offered]


def named(where: Callable[[Definition], bool]) -> frozenset[str]:
    """The names of the built-in tools whose definition satisfies `where`."""
    return frozenset(d.name for d in BUILTINS if where(d))


def default_policies() -> dict[str, Policy]:
    """Each built-in tool's policy when no rule or earlier answer applies; no tool is built to read it."""
    return {d.name: d.policy for d in BUILTINS} | {name: policy for name, (_, policy) in CODE_TOOLS.items()}


def kinds() -> dict[str, acp.ToolKind]:
    """The kind of every built-in tool, the code tools (offered where the editor or the index serves them) included."""
    return {d.name: d.kind for d in BUILTINS} | {name: kind for name, (kind, _) in CODE_TOOLS.items()}
