"""A real MCP server over stdio for the tests: echo, add, a crash, a hang, a resource link, and a call log."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import EmbeddedResource, ResourceLink, TextContent, TextResourceContents, ToolAnnotations

server = MCPServer("fake-stdio", log_level="WARNING")
# Every call that reaches a tool is appended here, so tests can prove a refused call never arrived.
CALL_LOG = Path(os.environ.get("FAKE_MCP_CALL_LOG", os.devnull))


def _record(name: str) -> None:
    with CALL_LOG.open("a", encoding="utf-8") as fh:
        fh.write(name + "\n")


@server.tool(description="Echo the given text back.", annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    _record("echo")
    print(f"echo called with {len(text)} chars", file=sys.stderr, flush=True)
    return text


@server.tool(description="Add two integers.")
def add(a: int, b: int) -> str:
    _record("add")
    return str(a + b)


@server.tool(description="Return the process id of this server.")
def whoami() -> str:
    return str(os.getpid())


@server.tool(description="Crash the server process mid-call.")
def crash() -> str:
    _record("crash")
    os._exit(1)


@server.tool(description="Sleep for a long time.")
def hang(seconds: float = 3600.0) -> str:
    _record("hang")
    time.sleep(seconds)
    return "woke up"


@server.tool(description="Return a resource link and an embedded resource.")
def docs() -> list[TextContent | ResourceLink | EmbeddedResource]:
    return [
        TextContent(type="text", text="see the guide"),
        ResourceLink(type="resource_link", uri="file:///guide.md", name="guide.md", mime_type="text/markdown"),
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(uri="file:///notes.txt", text="embedded notes", mime_type="text/plain"),
        ),
    ]


@server.tool(description="Fail with a tool error.")
def fail() -> str:
    raise ToolError("this tool always fails")


@server.tool(description="Register a new tool at runtime and announce the change.")
async def grow(name: str, ctx: Context) -> str:
    server.add_tool(lambda: f"I am {name}", name=name, description=f"Added at runtime: {name}")
    await ctx.session.send_tool_list_changed()
    return "added"


@server.resource("docs://readme", name="readme", description="The project's readme.", mime_type="text/markdown")
def readme_resource() -> str:
    _record("resource:readme")
    return "# Demo\nThe readme from the MCP server (resource R9)."


@server.resource("weather://{city}/current", name="weather", description="Current weather of a city.")
def weather_resource(city: str) -> str:
    _record(f"resource:weather:{city}")
    return f"Weather in {city}: sunny (template T4)."


@server.prompt(description="Review a pull request by number.")
def review_pr(number: str, focus: str = "correctness") -> str:
    _record("prompt:review_pr")
    return f"Review pull request #{number} with a focus on {focus}. (from the MCP prompt)"


if __name__ == "__main__":
    print("fake stdio MCP server starting", file=sys.stderr, flush=True)
    server.run("stdio")
