"""`agent/_diagnostics`, a server->client request: the editor's diagnostics of one file, after they settle.

    -> {uri, after?: generation, timeoutMs?}   <- {diagnostics: LSP Diagnostic[], generation: int}

Sent only to clients that opted in with `initializationOptions.diagnosticsRequest = true` (our VS Code extension
and Neovim plugin). `generation` counts the diagnostics changes the editor saw for the file; with `after`, the
editor answers once the count passed it and no change came for a short while, or after `timeoutMs`.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from pygls.lsp.server import LanguageServer

from ..client_contract import Diagnostic, DiagnosticsSnapshot

log = logging.getLogger(__name__)
METHOD = "agent/_diagnostics"
MAX_DIAGNOSTICS = 500  # one file's; more is noise, and keeps a broken editor answer small


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Position(_Model):
    line: int = Field(ge=0)
    character: int = Field(ge=0)


class _Range(_Model):
    start: _Position
    end: _Position


class LspDiagnostic(_Model):
    range: _Range
    message: str
    severity: int | None = Field(default=None, ge=1, le=4)
    source: str | None = None
    code: int | str | None = None


class DiagnosticsAnswer(_Model):
    diagnostics: list[LspDiagnostic] = Field(default_factory=list, max_length=MAX_DIAGNOSTICS)
    generation: int = 0


def to_core(answer: DiagnosticsAnswer) -> DiagnosticsSnapshot:
    return DiagnosticsSnapshot(
        diagnostics=[
            Diagnostic(
                line=d.range.start.line,
                character=d.range.start.character,
                message=d.message,
                severity=d.severity or 1,  # LSP: a missing severity is the client's to interpret; treat as error
                source=d.source,
                code=None if d.code is None else str(d.code),
            )
            for d in answer.diagnostics
        ],
        generation=answer.generation,
    )


class LspDiagnostics:
    """ClientDiagnostics over `agent/_diagnostics`."""

    def __init__(self, server: LanguageServer) -> None:
        self._server = server

    async def file_diagnostics(self, path: Path, after: int | None, timeout_s: float) -> DiagnosticsSnapshot:
        params: dict[str, object] = {"uri": path.as_uri()}
        if after is not None:
            params["after"] = after
            params["timeoutMs"] = int(timeout_s * 1000)
        result = await asyncio.wait_for(self._server.protocol.send_request_async(METHOD, params), timeout=timeout_s + 5)
        raw = result if isinstance(result, dict) else getattr(result, "__dict__", {})
        return to_core(DiagnosticsAnswer.model_validate(raw))
