"""A real MCP server over stdio with one tool that returns a big result (for the small-window tests)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("big-results", log_level="WARNING")


@server.tool(description="Return a report of about `kb` kilobytes.", annotations=ToolAnnotations(read_only_hint=True))
def report(kb: int) -> str:
    lines = []
    size = 0
    n = 0
    while size < kb * 1024:
        n += 1
        line = f"report line {n}: measurement {n * 7 % 1000} within range, status nominal"
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


if __name__ == "__main__":
    server.run("stdio")
