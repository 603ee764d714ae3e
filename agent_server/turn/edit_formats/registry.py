"""The edit formats there are, by their `agent.edit_format` name: adding one is a module and a line here."""

from __future__ import annotations

from .files import FilesFormat
from .format import EditFormat
from .tools import ToolsFormat

FORMATS: dict[str, EditFormat] = {f.name: f for f in (ToolsFormat(), FilesFormat())}
DEFAULT = "tools"


def of(name: str) -> EditFormat:
    """The format called `name`; tool calls for any other name ("auto" in a turn whose format was not resolved)."""
    return FORMATS.get(name) or FORMATS[DEFAULT]
