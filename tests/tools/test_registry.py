from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_server.errors import ToolError
from agent_server.tools.base import Tool, ToolContext, ToolResult
from agent_server.tools.builtin import builtin_tools
from agent_server.tools.registry import ToolRegistry, truncate, validate
from tests.tools.builtin_registry import default_registry

SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "word": {"type": "string"}},
    "required": ["n"],
    "additionalProperties": False,
}


def make(name: str, handler: Any) -> Tool:
    return Tool(name=name, description="test", parameters=SCHEMA, handler=handler)


async def echo(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    return ToolResult(text="x" * args["n"])


async def boom(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    raise KeyError("missing-thing")


async def refuse(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    raise ToolError("the file is locked")


async def slow(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    await asyncio.sleep(60)
    return ToolResult(text="never")


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry([make("echo", echo), make("boom", boom), make("refuse", refuse), make("slow", slow)])


async def test_unknown_tool_lists_the_available_ones(registry: ToolRegistry, ctx: ToolContext) -> None:
    result = await registry.execute(ctx, "rm_rf", {})
    assert result.is_error
    assert "unknown tool 'rm_rf'" in result.text
    assert "boom, echo, refuse, slow" in result.text


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, "missing required field 'n'"),
        ({"n": "three"}, "field 'n': 'three' is not of type 'integer'"),
        ({"n": 1, "colour": "red"}, "'colour' was unexpected"),
        ([1, 2], "must be a JSON object"),
    ],
)
async def test_invalid_arguments_name_the_field(
    registry: ToolRegistry, ctx: ToolContext, args: Any, expected: str
) -> None:
    result = await registry.execute(ctx, "echo", args)
    assert result.is_error
    assert result.text.startswith("Error: invalid arguments for echo: ")
    assert expected in result.text


def test_validate_accepts_good_arguments(registry: ToolRegistry) -> None:
    tool = registry.get("echo")
    assert tool is not None
    assert validate(tool, {"n": 3, "word": "hi"}) is None
    assert registry.validate(tool, {"n": 3}) is None


async def test_handler_exceptions_become_error_results(registry: ToolRegistry, ctx: ToolContext) -> None:
    crashed = await registry.execute(ctx, "boom", {"n": 1})
    assert crashed.is_error and crashed.text == "Error: KeyError: 'missing-thing'"
    refused = await registry.execute(ctx, "refuse", {"n": 1})
    assert refused.is_error and refused.text == "Error: the file is locked"


async def test_long_results_are_truncated_with_a_marker(ctx: ToolContext) -> None:
    registry = ToolRegistry([make("echo", echo)], result_limit=1000)
    result = await registry.execute(ctx, "echo", {"n": 5000})
    assert len(result.text) <= 1000
    cut = 5000 - result.text.count("x")
    assert f"[... {cut} characters cut" in result.text
    short = await registry.execute(ctx, "echo", {"n": 10})
    assert short.text == "x" * 10


def test_truncate_keeps_head_and_tail() -> None:
    text = "HEAD" + "m" * 10_000 + "TAIL"
    out = truncate(text, 500)
    assert out.startswith("HEAD") and out.endswith("TAIL") and len(out) <= 500


async def test_cancellation_propagates(registry: ToolRegistry, ctx: ToolContext) -> None:
    task = asyncio.create_task(registry.execute(ctx, "slow", {"n": 1}))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_register_unregister_and_specs() -> None:
    registry = ToolRegistry([make("a", echo), make("b", echo)])
    with pytest.raises(ValueError, match="already registered"):
        registry.register(make("a", echo))
    assert [s.name for s in registry.specs(["b", "zzz", "a"])] == ["b", "a"]
    assert registry.unregister("a") and not registry.unregister("a")
    assert registry.names() == ["b"] and "b" in registry


def test_builtin_tools_match_the_contract() -> None:
    tools = {t.name: t for t in builtin_tools()}
    expected = {
        "read_file": ("read", "allow"),
        "list_directory": ("read", "allow"),
        "find_files": ("search", "allow"),
        "search_text": ("search", "allow"),
        "codebase_search": ("search", "allow"),
        "write_file": ("edit", "ask"),
        "edit_file": ("edit", "ask"),
        "run_command": ("execute", "ask"),
        "web_fetch": ("fetch", "ask"),
        "update_plan": ("think", "allow"),
        "ask_question": ("other", "allow"),
        "task_completion": ("other", "allow"),
    }
    assert {n: (t.kind, t.default_policy) for n, t in tools.items()} == expected
    assert tools["ask_question"].loop_breaking and tools["task_completion"].loop_breaking
    assert tools["read_file"].describe({"path": "src/app.py", "start_line": 10, "end_line": 40}) == (
        "Read src/app.py:10-40"
    )
    assert tools["run_command"].describe({"command": "pytest -q"}) == "Run `pytest -q`"
    assert len(default_registry().specs()) == 12
