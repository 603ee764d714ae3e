"""A real HTTP server on a local address for the web_fetch tests: each route a function of the request handler,
every request path recorded (what left the machine is what the site saw)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.e2e.helpers import sent_messages
from tests.fakes.fake_llm import FakeLLMServer

Route = Callable[[BaseHTTPRequestHandler], None]
DOC = b"<html><head><title>Local page</title></head><body><h1>Local page</h1><p>PROTECTED-TEXT</p></body></html>"


def send(handler: BaseHTTPRequestHandler, body: bytes, kind: str = "text/html", **headers: str) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", kind)
    handler.send_header("Content-Length", str(len(body)))
    for name, value in headers.items():
        handler.send_header(name.replace("_", "-"), value)
    handler.end_headers()
    handler.wfile.write(body)


class Site:
    def __init__(self, routes: dict[str, Route], host: str = "127.0.0.1") -> None:
        self.hits: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                site.hits.append(self.path)
                route = routes.get(self.path.split("?")[0])
                try:
                    route(self) if route else send(self, DOC)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the fetch was stopped: what these tests want

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def tool_results(fake: FakeLLMServer) -> list[str]:
    """The tool results the model was last sent (the request after the last call)."""
    for index in range(len(fake.chat_requests()) - 1, -1, -1):
        found = [m["content"] for m in sent_messages(fake, index) if m["role"] == "tool"]
        if found:
            return found
    return []


def peak_memory_mb(pid: int) -> float:
    """The process's peak resident memory so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc status")
