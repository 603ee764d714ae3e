"""A recording proxy between agent-server and a real model server: every exchange kept, bytes as sent.

    proxy = RecordingProxy("http://127.0.0.1:PORT").start()   # proxy.url goes where the server's URL went
    proxy.exchanges                                            # [Exchange(path, request body, status, raw response)]

Used by the recorders (tests/fakes/record_qwen_turn.py) to see exactly what a face sends to the model and what the
model streamed back, and to write those streams as fake-LLM fixtures. Loopback only; nothing is rewritten.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Exchange:
    method: str
    path: str
    body: dict[str, Any] | None
    status: int = 0
    raw: bytes = b""


@dataclass
class RecordingProxy:
    upstream: str
    exchanges: list[Exchange] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> RecordingProxy:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _forward(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length) if length else None
                try:
                    body = json.loads(data) if data else None
                except ValueError:
                    body = None
                exchange = Exchange(method, self.path, body)
                headers = {"Content-Type": self.headers.get("Content-Type", "application/json")}
                req = urllib.request.Request(proxy.upstream + self.path, data=data, method=method, headers=headers)
                try:
                    response = urllib.request.urlopen(req, timeout=3600)
                except urllib.error.HTTPError as exc:
                    response = exc
                exchange.status = response.status
                self.send_response(response.status)
                kind = response.headers.get("Content-Type", "application/json")
                self.send_header("Content-Type", kind)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                chunks = []
                while piece := response.read1(65536) if hasattr(response, "read1") else response.read():
                    chunks.append(piece)
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                exchange.raw = b"".join(chunks)
                if exchange.path.endswith("/chat/completions"):
                    proxy.exchanges.append(exchange)

            def do_GET(self) -> None:
                self._forward("GET")

            def do_POST(self) -> None:
                self._forward("POST")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
