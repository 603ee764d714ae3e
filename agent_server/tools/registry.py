"""The tool registry: name -> Tool, argument validation against each tool's JSON schema, and safe execution."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from ..errors import ToolError
from ..llm.base import ToolSpec
from .base import Tool, ToolContext, ToolResult
from .spill import read_output_tool, spill_page

DEFAULT_RESULT_LIMIT = 6000


def truncate(text: str, limit: int) -> str:
    """Keep the head and tail of `text` within `limit` characters, with a marker saying how much was cut."""
    if len(text) <= limit:
        return text
    template = "\n[... {cut} characters cut from this result; ask for a narrower range to see them ...]\n"
    keep = max(limit - len(template.format(cut=len(text))), 0)
    head = keep * 2 // 3
    tail = keep - head
    marker = template.format(cut=len(text) - head - tail)
    return text[:head] + marker + (text[-tail:] if tail else "")


def _where(path: Iterable[Any]) -> str:
    parts = [str(p) for p in path]
    return ".".join(parts)


def validate(tool: Tool, arguments: Any) -> str | None:
    """None if `arguments` fit the tool's schema, else a message naming the offending field (no tool name)."""
    if not isinstance(arguments, dict):
        return f"arguments must be a JSON object, got {type(arguments).__name__}"
    validator = Draft202012Validator(tool.parameters)
    error = best_match(validator.iter_errors(arguments))
    if error is None:
        return None
    field = _where(error.absolute_path)
    if error.validator == "required":
        missing = [name for name in error.validator_value if name not in error.instance]
        field = ".".join(p for p in (field, missing[0] if missing else "") if p)
        return f"missing required field '{field}'"
    if error.validator == "additionalProperties":
        allowed = ", ".join(sorted(tool.parameters.get("properties", {})))
        return f"{error.message} (allowed: {allowed})"
    if field:
        return f"field '{field}': {error.message}"
    return str(error.message)


class ToolRegistry:
    """Holds the tools offered to the model and runs them so that failures become results, never crashes."""

    def __init__(self, tools: Iterable[Tool] = (), result_limit: int = DEFAULT_RESULT_LIMIT) -> None:
        self._tools: dict[str, Tool] = {}
        self.result_limit = result_limit
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool, replace: bool = False) -> None:
        if tool.name in self._tools and not replace:
            raise ValueError(f"a tool named '{tool.name}' is already registered")
        self._tools[tool.name] = tool
        if tool.source != "builtin" and "read_output" not in self._tools:
            # Long results of MCP tools are paged; this is how the model reads the rest (see spill.py).
            self._tools["read_output"] = read_output_tool()

    def unregister(self, name: str) -> bool:
        return self._tools.pop(name, None) is not None

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def validate(self, tool: Tool, arguments: Any) -> str | None:
        """See the module-level `validate`."""
        return validate(tool, arguments)

    def specs(self, names: Iterable[str] | None = None) -> list[ToolSpec]:
        """What the model sees; `names` restricts (and orders) the list, unknown names are skipped."""
        chosen = self._tools.values() if names is None else [self._tools[n] for n in names if n in self._tools]
        return [ToolSpec(name=t.name, description=t.description, parameters=t.parameters) for t in chosen]

    async def execute(self, ctx: ToolContext, name: str, arguments: Any, limit: int | None = None) -> ToolResult:
        """Run one call. Unknown tools, bad arguments and handler failures come back as error results."""
        tool = self._tools.get(name)
        if tool is None:
            available = ", ".join(sorted(self._tools)) or "(none)"
            return ToolResult(text=f"Error: unknown tool '{name}'. Available tools: {available}", is_error=True)
        problem = validate(tool, arguments)
        if problem is not None:
            return ToolResult(text=f"Error: invalid arguments for {name}: {problem}", is_error=True)
        cap = self.result_limit if limit is None else limit
        page = min(ctx.page_chars or cap, cap)
        ctx.page_chars = page  # tools that page aim under the registry's cut
        try:
            result = await tool.handler(ctx, arguments)
        except ToolError as exc:
            result = ToolResult.failed(exc)
        except Exception as exc:  # a tool bug must not end the turn; the model sees what went wrong
            result = ToolResult(text=f"Error: {type(exc).__name__}: {exc}", is_error=True)
        if tool.source != "builtin" and not result.is_error:
            # MCP results cannot be asked for again by range: page them, keeping the whole for read_output.
            result.text = spill_page(ctx.session_id, f"{name} result", result.text, page)
        result.text = truncate(result.text, page)
        return result
