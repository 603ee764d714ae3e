"""Logging for every mode: stderr (never stdout: in `serve` it carries JSON-RPC) and an optional file."""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterable
from typing import Any

# Bearer tokens and api keys in any of the shapes they reach a log: header lines, dict reprs, JSON, URLs.
_SECRET = re.compile(
    r"""(?ix)
    ( authorization ["']? \s* [:=] \s* ["']? \s* (?:bearer|basic|token) \s+
    | (?:api[_-]?key|apikey|access[_-]?token|secret|password|x-api-key) ["']? \s* [:=] \s* ["']? )
    ( [^\s"',}&]{4,} )
    """
)
_known: set[str] = set()  # configured secret values, masked wherever they appear


def remember_secrets(values: Iterable[str]) -> None:
    """Values from the configuration that must never be logged (llm.api_key and headers, MCP headers and env)."""
    _known.update(v for v in values if isinstance(v, str) and len(v) >= 6)


def secrets_in(settings: Any) -> list[str]:
    found = [settings.llm.api_key] if settings.llm.api_key else []
    found.extend(settings.llm.headers.values())  # a gateway's user or tenant header may be its credential
    for spec in settings.mcp_servers.values():
        for key in ("headers", "env"):
            values = spec.get(key) or {}
            if isinstance(values, dict):
                found.extend(str(v) for v in values.values())
    return found


def redact(text: str) -> str:
    for value in _known:
        text = text.replace(value, "***")
    return _SECRET.sub(lambda m: m.group(1) + "***", text)


class RedactSecrets(logging.Filter):
    """Secrets never reach logs: API keys and bearer tokens are masked in every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg = clean
            record.args = ()
        if record.exc_info and record.exc_info[1] is not None:
            # Tracebacks print the exception text again: mask it there too.
            exc = record.exc_info[1]
            if redact(str(exc)) != str(exc):
                record.exc_info = None
                record.msg = f"{clean} ({type(exc).__name__}: {redact(str(exc))})"
                record.args = ()
        return True


def setup(level: str = "WARNING", file: str | None = None) -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    problem = None
    if file:
        try:
            handlers.append(logging.FileHandler(file, encoding="utf-8"))
        except OSError as exc:  # a log file that cannot be opened is a bad setting, not a reason to stop
            problem = f"log.file: cannot open {file}: {exc}; logging to stderr only (ignored)"
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in handlers:
        handler.setFormatter(fmt)
        handler.addFilter(RedactSecrets())
        root.addHandler(handler)
    root.setLevel(level)
    # pygls logs every message body whole at INFO and DEBUG (file contents included): the redacted message trace
    # (wire_trace.py, DEBUG) shows them instead.
    logging.getLogger("pygls").setLevel(logging.WARNING)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    if problem:
        logging.getLogger(__name__).warning("%s", problem)
