"""The editor's open documents: only what didOpen/didChange said, never the disk, and never split whole per keystroke.

pygls's own TextDocument has two habits a server cannot afford (issue 38). A URI the editor never opened is read from
disk the first time its text is asked for: a FIFO blocks the whole server, `/dev/zero` is read until memory runs
out, a file outside the workspace is read and could be sent on (to the completion server). And every change and
every position conversion splits the whole text into lines again: a 50 MB document costs a second per keystroke.

Here a document's text is only what the editor sent, kept in a `TextLines` (chunks with their newline counts): an
incremental change touches the chunks it spans, a position is converted on its own line, and a URI that was never
opened has no text at all (`is_open` says which). `AgentProtocol.workspace` (server.py) hands pygls this workspace,
so its own didOpen/didChange/didClose handlers keep these documents.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.workspace import TextDocument, Workspace
from pygls.workspace.position_codec import ServerTextPosition

from ..text_lines import TextLines
from .positions import from_client


def column(line: str, units: int, encoding: str) -> int:
    """The code point index `units` code units into `line` (rounded down to a character's start; past the end: the
    end). Done by the codecs in C, so a line of megabytes costs milliseconds, not a Python loop over it."""
    units = max(units, 0)
    if encoding == "utf-32" or line.isascii():
        return min(units, len(line))
    codec, width = ("utf-8", 1) if encoding == "utf-8" else ("utf-16-le", 2)
    try:
        data = line.encode(codec)
    except UnicodeEncodeError:  # a lone surrogate: the exact, slower way
        return from_client([line], 0, units, encoding)[1]
    # A cut inside a character leaves an incomplete sequence that `ignore` drops: the start of that character.
    return len(data[: units * width].decode(codec, errors="ignore"))


class _LineView(Sequence[str]):
    """pygls's `lines` (each with its `\\n`), read one line at a time from the chunks instead of split up front."""

    def __init__(self, text: TextLines) -> None:
        self._text = text

    def __len__(self) -> int:
        return self._text.line_count if len(self._text) else 0

    def _one(self, n: int) -> str:
        if n < 0:
            n += len(self)
        if not 0 <= n < len(self):
            raise IndexError(n)
        return self._text.line(n) + ("\n" if n < self._text.line_count - 1 else "")

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self._one(i) for i in range(*index.indices(len(self)))]
        return self._one(index)


class OpenDocument(TextDocument):
    """A document as the editor sent it; the text of one it never opened is empty, never read from disk."""

    def __init__(self, uri: str, source: str | None = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(uri, None, *args, **kwargs)
        self.text_lines = TextLines(source or "")

    @property
    def source(self) -> str:
        return self.text_lines.text

    @property
    def lines(self) -> Sequence[str]:
        return _LineView(self.text_lines)

    @property
    def encoding(self) -> str:
        encoding = self.position_codec.encoding
        return str(getattr(encoding, "value", encoding) or "utf-16")

    def position_from_client_units(self, position: lsp.Position) -> ServerTextPosition:
        """The (line, code point) of an editor's position: only that line is read."""
        text = self.text_lines
        if position.line >= text.line_count:
            last = text.line_count - 1
            return ServerTextPosition(last, len(text) - text.line_start(last))
        line = max(position.line, 0)
        return ServerTextPosition(line, column(text.line(line), position.character, self.encoding))

    def offset_at_server_position(self, server_position: ServerTextPosition) -> int:
        return self.text_lines.offset(server_position.line, server_position.character)

    def offset_at_position(self, client_position: lsp.Position) -> int:
        return self.offset_at_server_position(self.position_from_client_units(client_position))

    def _apply_incremental_change(self, change: lsp.TextDocumentContentChangePartial) -> None:
        start = self.offset_at_position(change.range.start)
        end = self.offset_at_position(change.range.end)
        self.text_lines.replace(start, max(start, end), change.text)

    def _apply_full_change(self, change: lsp.TextDocumentContentChangeEvent) -> None:
        self.text_lines = TextLines(change.text)


class DocumentWorkspace(Workspace):
    """pygls's workspace whose documents are `OpenDocument`s."""

    @classmethod
    def like(cls, other: Workspace) -> DocumentWorkspace:
        sync = getattr(other, "_sync_kind", lsp.TextDocumentSyncKind.Incremental)
        return cls(other.root_uri, sync, list(other.folders.values()), other.position_encoding)

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return OpenDocument(
            doc_uri,
            source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self.position_codec,
        )

    def open_document(self, uri: str) -> OpenDocument | None:
        """The document if the editor opened it (and has not closed it), else None: nothing is read from disk."""
        doc = self.text_documents.get(unquote(uri))  # pygls keys its documents by the unquoted URI
        return doc if isinstance(doc, OpenDocument) else None
