"""Logging for every mode: stderr (never stdout: in `serve` it carries JSON-RPC) and an optional file."""

from __future__ import annotations

import logging
import re
import sys

_SECRET = re.compile(r"(?i)(authorization:\s*bearer\s+|api[_-]?key[\"'=:\s]+)([A-Za-z0-9._\-]{6,})")


class RedactSecrets(logging.Filter):
    """Secrets never reach logs: API keys and bearer tokens are masked in every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if _SECRET.search(message):
            record.msg = _SECRET.sub(lambda m: m.group(1) + "***", message)
            record.args = ()
        return True


def setup(level: str = "WARNING", file: str | None = None) -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if file:
        handlers.append(logging.FileHandler(file, encoding="utf-8"))
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in handlers:
        handler.setFormatter(fmt)
        handler.addFilter(RedactSecrets())
        root.addHandler(handler)
    root.setLevel(level)
    # pygls logs every message body at INFO; keep it quiet unless debugging.
    logging.getLogger("pygls").setLevel(logging.DEBUG if level == "DEBUG" else logging.WARNING)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
