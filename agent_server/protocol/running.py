"""Running the editor-facing server: over stdio (what editors start) or TCP (for debugging by hand)."""

from __future__ import annotations

import asyncio
import logging
import threading

from lsprotocol import types as lsp

from .server import AgentLanguageServer, AgentProtocol
from .transport import read_loop, serve_stdin

log = logging.getLogger(__name__)


class _LogForwarder(logging.Handler):
    """WARNING and above also go to the editor as window/logMessage."""

    def __init__(self, server: AgentLanguageServer) -> None:
        super().__init__(logging.WARNING)
        self._server = server
        self._busy = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self._busy, "on", False) or self._server.protocol.writer is None or self._server.agent is None:
            return
        self._busy.on = True
        try:
            kind = lsp.MessageType.Error if record.levelno >= logging.ERROR else lsp.MessageType.Warning
            self._server.protocol.notify(
                lsp.WINDOW_LOG_MESSAGE, lsp.LogMessageParams(type=kind, message=self.format(record))
            )
        except Exception:
            pass
        finally:
            self._busy.on = False


def serve_stdio(server: AgentLanguageServer) -> None:
    from pygls.io_ import StdoutWriter

    from ..stdio import claim_stdout
    from .early_initialize import pending

    logging.getLogger().addHandler(_LogForwarder(server))
    stop = threading.Event()
    server._stop_event = stop
    server.protocol.set_writer(StdoutWriter(claim_stdout()))
    protocol: AgentProtocol = server.protocol  # type: ignore[assignment]
    protocol.swallow_id = pending.answered_id
    try:
        asyncio.run(serve_stdin(server.protocol, stop, pending.prefix))
    except (BrokenPipeError, KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]


def serve_tcp(server: AgentLanguageServer, host: str, port: int) -> None:
    """One client at a time over TCP, for debugging with a client you start by hand."""
    logging.getLogger().addHandler(_LogForwarder(server))
    stop = threading.Event()

    class _Writer:
        def __init__(self, writer: asyncio.StreamWriter) -> None:
            self._w = writer

        def write(self, data: bytes) -> None:
            self._w.write(data)

        def close(self) -> None:
            self._w.close()

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.protocol.set_writer(_Writer(writer))
        await read_loop(reader, server.protocol, stop)
        writer.close()

    async def main() -> None:
        srv = await asyncio.start_server(on_client, host, port)
        log.warning("agent-server listening on %s:%s", host, port)
        async with srv:
            await srv.serve_forever()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
