"""A real MCP server over stdio that serves files as `file://` resources, like a filesystem MCP server: each path in
FAKE_MCP_FILES (separated by the OS path separator) is a resource whose URI is its `file://` URI, read when asked."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("fake-files", log_level="WARNING")


def _serve(path: Path) -> None:
    @server.resource(path.as_uri(), name=path.name, mime_type="text/plain")
    def read() -> str:
        return path.read_text()  # follows links, as a filesystem server does


for name in filter(None, os.environ.get("FAKE_MCP_FILES", "").split(os.pathsep)):
    _serve(Path(name))


if __name__ == "__main__":
    print("fake file MCP server starting", file=sys.stderr, flush=True)
    server.run("stdio")
