"""Inline completion as a service: debounce, one generation per document, a cache keyed by the prefix, context,
streaming with an early stop, and the trimmed suggestion.

Cancellation: a newer request for the same document cancels the older one's generation (it answers with no
suggestion), and `$/cancelRequest` cancels the request's task; either way the HTTP stream is closed, which ends the
server's generation too.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..config import CompletionConfig
from ..errors import LLMError
from ..text_lines import TextLines
from .context import DefinitionSource, RecentChunks, gather
from .trim import Cursor, cut, finish, indent_of
from .types import FimRequest, FimSupport
from .window import MAX_SIDE_CHARS, around, head, lines_around

if TYPE_CHECKING:  # httpx stays unloaded until a completion is asked for (serve's cold start)
    from .backends import FimBackend

log = logging.getLogger(__name__)
RETRY_S = 20.0
TYPED_AHEAD = 48  # characters typed since a cached suggestion that still match it


@dataclass
class Document:
    """A document as the service needs it: workspace-relative path, text, and the cursor (0-based line, column in
    the line's characters). `text` need only hold the lines around the cursor (`CompletionService.document`)."""

    key: str  # the editor's URI: requests for one key supersede each other
    path: str
    text: str
    line: int
    character: int


@dataclass
class Suggestion:
    text: str
    cached: bool = False
    elapsed_ms: float = 0.0
    # Why there is none: "" (there is one), "disabled", "unsupported", "superseded", "empty", "error".
    reason: str = ""
    extra_chunks: int = 0


@dataclass
class _Split:
    prefix: str
    suffix: str
    cursor: Cursor
    indent: int
    window: str
    line_prefix: str = ""
    extras: list[str] = field(default_factory=list)


def split(doc: Document, prefix_lines: int, suffix_lines: int) -> _Split:
    lines = doc.text.split("\n")
    line = min(max(doc.line, 0), len(lines) - 1) if lines else 0
    current = lines[line] if lines else ""
    col = min(max(doc.character, 0), len(current))
    before = lines[max(0, line - prefix_lines) : line]
    after = lines[line + 1 : line + 1 + suffix_lines]
    line_prefix, line_suffix = current[:col], current[col:]
    prefix = "\n".join([*before, line_prefix])
    suffix = "\n".join([line_suffix, *after])
    if line + 1 + suffix_lines < len(lines):
        suffix += "\n"
    head = line_prefix if line_prefix.strip() else ""
    indent = indent_of(head) if head else len(line_prefix.expandtabs(4))
    cursor = Cursor(line_prefix, line_suffix, after[:8])
    return _Split(prefix, suffix, cursor, indent, "\n".join([*before, current, *after]), line_prefix)


class _Cache:
    """Suggestions by (prefix, suffix) hash; a prefix that grew by what the user typed finds the rest of an older
    suggestion that starts with those characters."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, str], str] = OrderedDict()

    @staticmethod
    def _key(prefix: str, suffix: str) -> tuple[str, str]:
        return hashlib.sha1(prefix.encode()).hexdigest(), hashlib.sha1(suffix.encode()).hexdigest()

    def get(self, prefix: str, suffix: str) -> str | None:
        hit = self._items.get(self._key(prefix, suffix))
        if hit is not None:
            self._items.move_to_end(self._key(prefix, suffix))
            return hit
        for typed in range(1, min(TYPED_AHEAD, len(prefix)) + 1):
            tail = prefix[-typed:]
            if "\n" in tail:
                break
            older = self._items.get(self._key(prefix[:-typed], suffix))
            if older is not None and older.startswith(tail) and len(older) > typed:
                return older[typed:]
        return None

    def put(self, prefix: str, suffix: str, text: str) -> None:
        if self.size <= 0:
            return
        self._items[self._key(prefix, suffix)] = text
        self._items.move_to_end(self._key(prefix, suffix))
        while len(self._items) > self.size:
            self._items.popitem(last=False)


BackendFactory = Callable[[], Awaitable["FimBackend"]]


class CompletionService:
    def __init__(
        self,
        config: CompletionConfig,
        open_backend: BackendFactory,
        definitions: DefinitionSource | None = None,
        repo_name: str = "workspace",
    ) -> None:
        self.config = config
        self._open_backend = open_backend
        self.definitions = definitions
        self.repo_name = repo_name
        self.ring = RecentChunks(config.ring_chunks, config.chunk_lines)
        self.cache = _Cache(config.cache_size)
        self._backend: FimBackend | None = None
        self._backend_lock = asyncio.Lock()
        self.support: FimSupport | None = None
        self._retry_at = 0.0  # after a server that did not answer, wait before asking again
        self._inflight: dict[str, asyncio.Task[Suggestion]] = {}
        self._last_cursor: tuple[str, str, int] | None = None  # (path, text, line) of the last request
        self._edited_line: dict[str, int] = {}

    # -- what the editor tells us ----------------------------------------------------------------------------

    def opened(self, path: str, text: str) -> None:
        self.ring.add(path, text)

    def edited(self, path: str, line: int) -> None:
        self._edited_line[path] = line

    def saved(self, path: str, text: TextLines) -> None:
        """The chunk around the last edit joins the ring: only the lines around it are read."""
        edited = self._edited_line.get(path)
        if edited is None:
            self.ring.add(path, head(text.slice(0, MAX_SIDE_CHARS), self.config.chunk_lines))
            return
        chunk, line = lines_around(text, edited, self.config.chunk_lines)
        self.ring.add(path, chunk, line)

    # -- the backend ------------------------------------------------------------------------------------------

    async def backend(self) -> FimBackend | None:
        """The backend, opened and checked once; None (with `support.reason`) when the model cannot do FIM."""
        async with self._backend_lock:
            if self._backend is None and self.support is None and time.monotonic() >= self._retry_at:
                try:
                    backend = await self._open_backend()
                except LLMError as exc:
                    log.warning("inline completion: %s", exc)
                    self._retry_at = time.monotonic() + RETRY_S  # the server may come up later
                    return None
                self.support = await backend.check()
                if self.support.ok:
                    self._backend = backend
                else:
                    # Once per settings: a WARNING, so the editor's log (window/logMessage) says it too.
                    log.warning("inline completion is off: %s", self.support.reason)
                    await backend.aclose()
            return self._backend

    async def aclose(self) -> None:
        for task in list(self._inflight.values()):
            task.cancel()
        if self._backend is not None:
            await self._backend.aclose()
            self._backend = None

    # -- completing ---------------------------------------------------------------------------------------------

    def document(self, key: str, path: str, text: TextLines, line: int, character: int) -> Document:
        """The request's document as completion needs it: the lines around the cursor, never the whole text."""
        # One line more below than the suffix takes: `split` ends the suffix with its newline only when more follows.
        cut = around(text, line, character, self.config.prefix_lines, self.config.suffix_lines + 1)
        return Document(key, path, cut.text, cut.line, cut.character)

    async def complete(self, doc: Document) -> Suggestion:
        """The suggestion at the cursor; a newer call for the same `doc.key` makes this one answer "superseded"."""
        if not self.config.enabled:
            return Suggestion("", reason="disabled")
        started = time.perf_counter()
        parts = split(doc, self.config.prefix_lines, self.config.suffix_lines)
        hit = self.cache.get(parts.prefix, parts.suffix)
        if hit is not None:
            return Suggestion(hit, cached=True, elapsed_ms=(time.perf_counter() - started) * 1000)
        older = self._inflight.pop(doc.key, None)
        if older is not None:
            older.cancel()
        task = asyncio.ensure_future(self._generate(doc, parts, started))
        self._inflight[doc.key] = task
        try:
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # our own request was cancelled ($/cancelRequest): the awaited task was cancelled with it
            return Suggestion("", reason="superseded")
        finally:
            if self._inflight.get(doc.key) is task:
                del self._inflight[doc.key]

    async def _generate(self, doc: Document, parts: _Split, started: float) -> Suggestion:
        if self.config.debounce_ms:
            await asyncio.sleep(self.config.debounce_ms / 1000)
        backend = await self.backend()
        if backend is None:
            return Suggestion("", reason="unsupported")
        self._note_cursor(doc)
        extra = await gather(
            self.ring,
            self.definitions,
            doc.path,
            parts.prefix,
            parts.window,
            self.config.context_tokens,
            self.config.chunk_lines,
        )
        req = FimRequest(
            prefix=parts.prefix,
            suffix=parts.suffix,
            path=doc.path,
            line_prefix=parts.line_prefix,
            extra=extra,
            repo_name=self.repo_name,
            max_tokens=self.config.max_tokens,
            indent=parts.indent if self.config.multiline and not parts.cursor.mid_line else 0,
            temperature=self.config.temperature,
        )
        raw = await self._stream(backend, req, parts.cursor)
        if raw is None:
            return Suggestion("", reason="error", elapsed_ms=(time.perf_counter() - started) * 1000)
        text = finish(raw, parts.cursor, self.config.multiline, self.config.max_lines)
        self.cache.put(parts.prefix, parts.suffix, text)
        elapsed = (time.perf_counter() - started) * 1000
        return Suggestion(text, elapsed_ms=elapsed, reason="" if text else "empty", extra_chunks=len(extra))

    async def _stream(self, backend: FimBackend, req: FimRequest, cursor: Cursor) -> str | None:
        raw = ""
        pieces = backend.stream(req)
        try:
            async for piece in pieces:
                raw += piece
                _, done = cut(raw, cursor, self.config.multiline, self.config.max_lines)
                if done:
                    break  # the suggestion is complete: closing the stream stops the server's generation
        except LLMError as exc:
            log.warning("inline completion failed: %s", exc)
            return None
        finally:
            await pieces.aclose()  # type: ignore[attr-defined]
        return raw

    def _note_cursor(self, doc: Document) -> None:
        """Leaving a file puts the chunk around where the cursor was into the ring (llama.vscode's BufLeave)."""
        last = self._last_cursor
        if last is not None and last[0] != doc.path:
            self.ring.add(last[0], last[1], last[2])
        self._last_cursor = (doc.path, doc.text, doc.line)
