"""A real streamable-HTTP MCP server for the tests, served by uvicorn on 127.0.0.1 at a random port.

Run as a script it prints `PORT <n>` on stdout once listening. `Authorization` must equal $FAKE_MCP_TOKEN if set.
"""

from __future__ import annotations

import os
import socket
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from starlette.types import ASGIApp, Receive, Scope, Send

server = MCPServer("fake-http", log_level="WARNING")


@server.tool(description="Look up an issue in the tracker by key.", annotations=ToolAnnotations(read_only_hint=True))
def get_issue(key: str) -> str:
    return f"{key}: Login button does nothing on Safari (status: open)"


@server.tool(description="Multiply two numbers.")
def multiply(a: float, b: float) -> str:
    return str(a * b)


def _guard(app: ASGIApp, token: str) -> ASGIApp:
    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization", b"").decode() != token:
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"unauthorized"})
            return
        await app(scope, receive, send)

    return guarded


def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    app: ASGIApp = server.streamable_http_app()
    token = os.environ.get("FAKE_MCP_TOKEN")
    if token:
        app = _guard(app, token)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    sys.stdout.flush()
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
