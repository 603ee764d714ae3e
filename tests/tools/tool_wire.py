"""What the model and the user are shown of every built-in tool, as one JSON document: each tool's full definition
(name, description, schema, in the order sent), the lean definitions (with and without the tools the lean prompt
leaves out), the code tools in both their forms, and per tool its kind, default policy, loop-breaking flag and the
card titles of sample calls. tests/tools/test_tool_wire.py holds it equal to tool_wire.json, written before the tools
were redefined (issue 39), so the redefinition changed nothing on the wire."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_server.client_contract import ClientFeatures
from agent_server.config import Settings, ToolsConfig
from agent_server.llm.base import ToolSpec
from agent_server.tools.base import Tool
from agent_server.tools.builtin import builtin_tools
from agent_server.tools.code_nav import code_tools
from agent_server.tools.lean import lean_specs
from agent_server.tools.permissions import InMemoryDecisionStore, PermissionPolicy
from agent_server.tools.registry import ToolRegistry
from agent_server.tools.spill import read_output_tool

SNAPSHOT = Path(__file__).with_name("tool_wire.json")
LEFT_OUT = ["codebase_search", "update_plan", "ask_question", "task_completion", "web_fetch"]
SAMPLES: dict[str, list[dict[str, Any]]] = {
    "read_file": [{"path": "src/app.py"}, {"path": "a.py", "start_line": 10}, {"path": "a.py", "end_line": 5},
                  {"path": "a.py", "start_line": 3, "end_line": 9}, {}],
    "list_directory": [{}, {"path": "src"}],
    "find_files": [{"pattern": "**/*.py"}, {"pattern": "x" * 80}],
    "search_text": [{"pattern": "def main"}, {"pattern": "TODO", "path": "src"}],
    "codebase_search": [{"query": "where the config is loaded"}],
    "write_file": [{"path": "a.py", "content": "x"}, {"path": "src/a.py", "content": "x"}],
    "edit_file": [{"path": "a.py", "old_text": "a", "new_text": "b"}],
    "run_command": [{"command": "pytest -q"}, {"command": "echo  a\n  b " * 10}],
    "update_plan": [{"entries": []}],
    "web_fetch": [{"url": "https://docs.python.org/3/library"}, {"url": "not a url"}, {}],
    "ask_question": [{"question": "Which?"}],
    "task_completion": [{"summary": "done"}],
    "read_output": [{"id": "out-1"}],
    "find_definition": [{"path": "a.py", "line": 3, "symbol": "f"}, {"symbol": "f"}],
    "find_references": [{"path": "a.py", "line": 3}, {"symbol": "f"}],
    "hover": [{"path": "a.py", "line": 3, "symbol": "f"}],
    "document_symbols": [{"path": "a.py"}],
    "rename_symbol": [{"path": "a.py", "line": 3, "symbol": "f", "new_name": "g"}],
}  # fmt: skip


class _Code:
    serves = frozenset({"definition", "references", "hover", "documentSymbol", "rename"})


class _Index:
    """Enough of a SymbolIndex for code_tools to offer the index's forms."""

    async def definitions(self, name: str, limit: int) -> list[Any]:
        return []

    async def users(self, name: str, limit: int) -> list[str]:
        return []


def _spec(spec: ToolSpec) -> dict[str, Any]:
    return {"name": spec.name, "description": spec.description, "parameters": spec.parameters}


def _facts(tool: Tool) -> dict[str, Any]:
    return {
        "kind": tool.kind,
        "default_policy": tool.default_policy,
        "loop_breaking": tool.loop_breaking,
        "never_compress": tool.never_compress,
        "titles": [tool.describe(args) for args in SAMPLES.get(tool.name, [])],
    }


def _code_tools(editor: bool) -> list[Tool]:
    features = ClientFeatures(code=_Code()) if editor else ClientFeatures()  # type: ignore[arg-type]
    index = _Index()
    services: Any = {} if editor else {"index": index}
    policy = PermissionPolicy(ToolsConfig(), InMemoryDecisionStore())
    return code_tools(features, services, lambda name: True, policy, Path("/ws"))


def _judged(tools: list[Tool], workspace: Path) -> dict[str, Any]:
    """Each sample call as the default policy and one rule of each shape judge it: verdict and subjects."""
    rules = [
        {"tool": "*", "pattern": "src/*", "policy": "allow"},
        {"tool": "*", "pattern": "pytest *", "policy": "allow"},
        {"tool": "*", "pattern": "*.python.org", "policy": "allow"},
    ]
    policies = {
        "default": PermissionPolicy(ToolsConfig(), InMemoryDecisionStore()),
        "rules": PermissionPolicy(ToolsConfig.model_validate({"rules": rules}), InMemoryDecisionStore()),
    }
    out: dict[str, Any] = {}
    for tool in tools:
        for n, args in enumerate(SAMPLES.get(tool.name, [])):
            out[f"{tool.name} {n}"] = {
                name: [policy.decide(tool, args, workspace), policy.subjects(tool, args, workspace)]
                for name, policy in policies.items()
            }
    return out


def wire(workspace: Path = Path("/nonexistent-ws")) -> dict[str, Any]:
    """Today's wire of every built-in tool."""
    tools = builtin_tools(Settings())
    registry = ToolRegistry(tools)
    longer = builtin_tools(ToolsConfig(command_timeout_s=45.5, result_limit=9000))
    with_output = ToolRegistry([*tools, read_output_tool()])
    editor, index = _code_tools(editor=True), _code_tools(editor=False)
    every = [*tools, read_output_tool(), *editor, *index]
    return {
        "full": [_spec(s) for s in registry.specs()],
        "full_configured": [_spec(s) for s in ToolRegistry(longer).specs()],
        "lean": [_spec(s) for s in lean_specs(registry)],
        "lean_keeping_all": [_spec(s) for s in lean_specs(registry, LEFT_OUT)],
        "lean_with_read_output": [_spec(s) for s in lean_specs(with_output, ["web_fetch"])],
        "read_output": _spec(ToolRegistry([read_output_tool()]).specs()[0]),
        "code_tools_editor": [_spec(s) for s in ToolRegistry(editor).specs()],
        "code_tools_index": [_spec(s) for s in ToolRegistry(index).specs()],
        "judged": _judged([*tools, read_output_tool()], workspace),
        "facts": {f"{t.name}{'' if t in editor or t not in index else ' (index)'}": _facts(t) for t in every},
    }


def dumped(data: dict[str, Any]) -> str:
    """Key order kept: the order of a schema's keys is part of what the model reads."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # writes the snapshot: only ever run against the code whose wire is to be kept
    SNAPSHOT.write_text(dumped(wire()), encoding="utf-8")
