"""The facade: one workspace's index, built off the event loop, resumable, incremental, searchable."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..errors import SandboxError
from ..tools.sandbox import read_regular
from ..tools.search_query import shorten_query
from . import symbols
from .db import CatalogEntry, IndexDB, default_db_path
from .embeddings import Embedder, embed_pending, embed_query, load_vectors
from .entities import analyze_request
from .graph import SymbolGraph
from .pool import discard_pool, shared_pool, usable_cpus, warm_pool
from .prepare import PreparedFile, prepare_batch, prepare_data
from .scanner import ScannedFile, Scanner
from .search import FileHit, Hit, rank, rank_files
from .search_context import SearchContext, build_suffix_map
from .symbols import NamedChunk
from .watcher import watch_tree
from .weights import Weights

BATCH_FILES = 64
IN_FLIGHT_PER_CPU = 3  # batches queued per worker: results come back in order, so one slow batch must not idle the rest
EDIT_HALF_LIFE_S = 600.0

Progress = Callable[[int, int, str], Awaitable[None]]
Entry = tuple[str, int, int, str | None]  # path, size, mtime_ns, catalogued hash


@dataclass
class IndexStats:
    """What one `build` did. `files_processed` counts files (re)chunked; unchanged files are not."""

    files_total: int = 0
    files_processed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    files_skipped: int = 0  # binary or unreadable
    chunks: int = 0
    seconds: float = 0.0
    cancelled: bool = False


@dataclass
class IndexStatus:
    files: int
    chunks: int
    last_build: float | None
    building: bool
    embeddings: int


class WorkspaceIndex:
    """Index of one workspace root; all heavy work runs in worker threads in small batches."""

    def __init__(
        self, root: Path, db_path: Path | None = None, *, max_file_bytes: int = 1_000_000,
        embedder: Embedder | None = None,
    ) -> None:  # fmt: skip
        self.root = root.resolve()
        if not self.root.is_dir():
            raise NotADirectoryError(f"workspace root is not a directory: {root}")
        self.scanner = Scanner(self.root, max_file_bytes)
        self.db = IndexDB(db_path or default_db_path(self.root))
        self.embedder = embedder
        self.weights = Weights()
        self._building = False
        self._ctx: SearchContext | None = None
        self._ctx_generation = -1
        self._ctx_task: asyncio.Task[None] | None = None
        self._open: set[str] = set()
        self._edited: dict[str, float] = {}
        self._watch_stop: asyncio.Event | None = None
        self._watch_task: asyncio.Task[None] | None = None

    # -- building -------------------------------------------------------------------------------------------

    def _entries(self, files: list[ScannedFile], catalog: dict[str, CatalogEntry]) -> list[Entry]:
        return [(f.path, f.size, f.mtime_ns, old.hash if (old := catalog.get(f.path)) else None) for f in files]

    def _write(self, prepared: list[PreparedFile], stats: IndexStats) -> None:
        """Store one prepared batch in a single transaction (runs in a worker thread)."""
        with self.db.transaction() as conn:
            stats.chunks += self.db.write_batch(conn, prepared)
        for pf in prepared:
            if pf.status == "indexed":
                stats.files_processed += 1
            elif pf.status == "unchanged":
                stats.files_unchanged += 1
            else:
                stats.files_skipped += 1

    async def _prepared_batches(
        self, batches: list[list[Entry]], cancel: asyncio.Event | None
    ) -> AsyncIterator[list[PreparedFile]]:
        """Prepared batches in order: chunked in worker processes (a few batches ahead) when there are several."""
        root = str(self.root)
        pool = shared_pool() if len(batches) > 1 else None
        sent = 0
        if pool is not None:
            loop = asyncio.get_running_loop()
            pending: deque[asyncio.Future[list[PreparedFile]]] = deque()
            try:
                while sent < len(batches) or pending:
                    while sent < len(batches) and len(pending) < IN_FLIGHT_PER_CPU * usable_cpus():
                        pending.append(loop.run_in_executor(pool, prepare_batch, root, batches[sent]))
                        sent += 1
                    done = await pending.popleft()
                    if cancel is not None and cancel.is_set():
                        return
                    yield done
                return
            except BrokenProcessPool:
                # A worker died (or could not start): finish this build in a thread instead.
                discard_pool(broken=True)
                sent -= len(pending) + 1
            finally:
                for fut in pending:
                    fut.cancel()
        for batch in batches[max(sent, 0) :]:
            yield await asyncio.to_thread(prepare_batch, root, batch)

    async def _store(
        self, prepared: AsyncIterator[list[PreparedFile]], stats: IndexStats, done: int, progress: Progress | None,
        cancel: asyncio.Event | None,
    ) -> None:  # fmt: skip
        """Write prepared batches, in order, while the next ones are being prepared: one write at a time, each
        taking everything that arrived during the previous one. The writer (FTS5 tokenizing) shares the cores with
        the chunking workers, so it must never hold them up; a busy writer makes fewer, larger transactions."""
        queue: list[PreparedFile] = []
        writing: asyncio.Task[None] | None = None
        try:
            async for batch in prepared:
                if cancel is not None and cancel.is_set():
                    break
                queue.extend(batch)
                done += len(batch)
                if writing is None or writing.done():
                    if writing is not None:
                        await writing  # (raises its error, if any)
                    writing = asyncio.create_task(asyncio.to_thread(self._write, queue, stats))
                    queue = []
                if progress is not None:
                    await progress(min(done, stats.files_total), stats.files_total, batch[-1].path)
        finally:
            if writing is not None:
                await writing
        if queue:
            await asyncio.to_thread(self._write, queue, stats)

    async def build(self, progress: Progress | None = None, cancel: asyncio.Event | None = None) -> IndexStats:
        """Bring the index up to date with the disk; unchanged files are skipped, `cancel` stops between batches."""
        start = time.perf_counter()
        stats = IndexStats()
        self._building = True
        try:
            catalog = await asyncio.to_thread(self.db.catalog)
            if not catalog:
                warm_pool()  # a cold build: let the workers start while the tree is scanned
            scanned = await asyncio.to_thread(lambda: list(self.scanner.walk()))
            stats.files_total = len(scanned)
            present = {f.path for f in scanned}
            gone = [p for p in catalog if p not in present]
            if gone:
                await asyncio.to_thread(self._remove_paths, gone)
                stats.files_removed = len(gone)
            todo = []
            for f in scanned:
                old = catalog.get(f.path)
                if old is not None and old.size == f.size and old.mtime_ns == f.mtime_ns:
                    stats.files_unchanged += 1
                else:
                    todo.append(f)
            done = stats.files_unchanged
            if progress is not None:
                await progress(done, stats.files_total, "")
            entries = self._entries(todo, catalog)
            batches = [entries[i : i + BATCH_FILES] for i in range(0, len(entries), BATCH_FILES)]
            with self.db.bulk():
                await self._store(self._prepared_batches(batches, cancel), stats, done, progress, cancel)
            if cancel is not None and cancel.is_set():
                stats.cancelled = True
            if not stats.cancelled:
                await asyncio.to_thread(self.db.set_meta, "last_build", str(time.time()))
        finally:
            self._building = False
            stats.seconds = time.perf_counter() - start
        return stats

    async def embed_pending(self, idle: asyncio.Event | None = None, cancel: asyncio.Event | None = None) -> int:
        """Embed chunks without vectors (no-op without an embedder); waits on `idle` between batches."""
        if self.embedder is None:
            return 0
        return await embed_pending(self.db, self.embedder, idle=idle, cancel=cancel)

    def _remove_paths(self, paths: list[str]) -> None:
        with self.db.transaction() as conn:
            for p in paths:
                self.db.remove_file(conn, p)

    # -- incremental ----------------------------------------------------------------------------------------

    def _relative(self, path: Path) -> str | None:
        p = path if path.is_absolute() else self.root / path
        try:
            return p.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None

    async def update_file(self, path: Path, text: str | None = None) -> None:
        """Re-index one file (from `text`, the editor buffer, when given); ignored or vanished files are dropped."""
        full = path if path.is_absolute() else self.root / path
        if full.name == ".gitignore":
            self.scanner.invalidate(self._relative(full) or "")
        rel = self.scanner.accepts(full)
        if rel is None:
            stale = self._relative(full)
            if stale is not None:
                await self.remove_file(full)
            return

        def work() -> None:
            try:
                st = full.stat()
                limit = self.scanner.max_file_bytes + 1  # one more byte shows it is too big
                data = text.encode("utf-8") if text is not None else read_regular(full, limit, truncate=True)
            except (OSError, SandboxError):  # gone, or not a regular file (a FIFO would block this worker)
                self._remove_paths([rel])
                return
            if len(data) > self.scanner.max_file_bytes:
                self._remove_paths([rel])
                return
            old = self.db.catalog_entry(rel)
            prepared = prepare_data(rel, data, st.st_size, st.st_mtime_ns, old.hash if old else None)
            if prepared.status == "unchanged":
                return
            with self.db.transaction() as conn:
                self.db.write_batch(conn, [prepared])

        await asyncio.to_thread(work)

    async def remove_file(self, path: Path) -> None:
        """Drop a file, or, for a folder that is gone (moved away, renamed, deleted), every file indexed under it:
        the watcher hears of the folder alone."""
        rel = self._relative(path)
        if rel is not None:
            await asyncio.to_thread(lambda: self._remove_paths([rel, *self._indexed_under(rel)]))

    async def update_tree(self, folder: Path) -> None:
        """Index the files of a folder that appeared (moved or copied in, a renamed package): the watcher hears of
        the folder alone, not of the files it brought."""
        rel = self._relative(folder)
        if rel is None:
            return
        for found in await asyncio.to_thread(lambda: list(self.scanner.walk(rel))):
            await self.update_file(self.root / found.path)  # (which asks `accepts`: the folder may be ignored)

    def _indexed_under(self, rel: str) -> list[str]:
        # '0' follows '/': the range holds exactly the paths that start with "rel/", with no LIKE pattern to escape.
        rows = self.db.query("SELECT path FROM files WHERE path >= ? AND path < ?", (rel + "/", rel + "0"))
        return [str(r[0]) for r in rows]

    # -- search ---------------------------------------------------------------------------------------------

    def _load_context(self) -> SearchContext:
        generation = self.db.generation
        paths = {int(r[0]): str(r[1]) for r in self.db.query("SELECT id, path FROM files")}
        ctx = SearchContext(SymbolGraph.load_cached(self.db), paths, build_suffix_map(paths))
        ctx.doc_freq, ctx.chunk_count = self.db.doc_freqs()
        if self.embedder is not None:
            ctx.vectors = load_vectors(self.db, self.embedder.model)
        self._ctx, self._ctx_generation = ctx, generation
        return ctx

    async def _refresh_context(self) -> None:
        await asyncio.to_thread(self._load_context)

    async def _context(self) -> SearchContext:
        """Search caches; after writes the old graph serves while a fresh one loads in the background."""
        if self._ctx is None:
            return await asyncio.to_thread(self._load_context)
        if self._ctx_generation != self.db.generation:
            # Paths must be current for a saved file to be searchable at once; the graph may lag a little.
            paths = await asyncio.to_thread(
                lambda: {int(r[0]): str(r[1]) for r in self.db.query("SELECT id, path FROM files")}
            )
            if paths != self._ctx.paths:  # rebind, never mutate: a search may be reading the old dicts
                self._ctx.paths = paths
                self._ctx.by_suffix = build_suffix_map(paths)
            if self._ctx_task is None or self._ctx_task.done():
                self._ctx_task = asyncio.create_task(self._refresh_context())
        return self._ctx

    async def search(self, query: str, limit: int = 10, path_prefix: str | None = None) -> list[Hit]:
        """Best chunks for a free-text query (identifiers, paths, stack traces and prose all work): each candidate
        file's best chunk in file-rank order first, then second-best chunks, and so on (`search.rank`)."""
        if not query.strip():
            return []
        query, _note = shorten_query(query)  # before anything is loaded or sent to an embedding server
        ctx, qvec = await self._prepare_search(query)

        def parse_and_rank() -> list[Hit]:  # both off the event loop: a chat keeps streaming during any search
            return rank(self.db, ctx, analyze_request(query), limit, path_prefix, self.weights, qvec)

        return await asyncio.to_thread(parse_and_rank)

    async def search_files(self, query: str, limit: int = 10, path_prefix: str | None = None) -> list[FileHit]:
        """Distinct files for a free-text query, best first, each with its best chunks."""
        if not query.strip():
            return []
        query, _note = shorten_query(query)  # before anything is loaded or sent to an embedding server
        ctx, qvec = await self._prepare_search(query)

        def parse_and_rank() -> list[FileHit]:
            return rank_files(self.db, ctx, analyze_request(query), limit, path_prefix, self.weights, qvec)

        return await asyncio.to_thread(parse_and_rank)

    async def definitions(self, name: str, limit: int) -> list[NamedChunk]:
        """The chunks that define `name` (find_definition without a language server)."""
        return await asyncio.to_thread(symbols.definitions, self.db, name, limit)

    async def users(self, name: str, limit: int) -> list[str]:
        """The files that use `name` (find_references without a language server)."""
        return await asyncio.to_thread(symbols.users, self.db, name, limit)

    async def _prepare_search(self, query: str) -> tuple[SearchContext, npt.NDArray[np.float32] | None]:
        ctx = await self._context()
        ctx.open_files = set(self._open)
        now = time.time()
        ctx.edited_files = {p: 0.5 ** ((now - t) / EDIT_HALF_LIFE_S) for p, t in self._edited.items()}
        qvec = None
        if self.embedder is not None and ctx.vectors is not None:
            qvec = await embed_query(self.embedder, query, ctx.vectors[1].shape[1])  # None: lexical only
        return ctx, qvec

    def note_open(self, path: Path) -> None:
        rel = self._relative(path)
        if rel is not None:
            self._open.add(rel)

    def note_closed(self, path: Path) -> None:
        rel = self._relative(path)
        if rel is not None:
            self._open.discard(rel)

    def note_edited(self, path: Path) -> None:
        rel = self._relative(path)
        if rel is not None:
            self._edited[rel] = time.time()

    def status(self) -> IndexStatus:
        files = int(self.db.query("SELECT COUNT(*) FROM files")[0][0])
        chunks = int(self.db.query("SELECT COUNT(*) FROM chunks")[0][0])
        vectors = int(self.db.query("SELECT COUNT(*) FROM embeddings")[0][0])
        last = self.db.get_meta("last_build")
        return IndexStatus(files, chunks, float(last) if last else None, self._building, vectors)

    # -- watching -------------------------------------------------------------------------------------------

    def start_watching(self) -> None:
        """Follow file changes on disk until `stop_watching` (needs a running event loop)."""
        if self._watch_task is not None and not self._watch_task.done():
            return
        self._watch_stop = asyncio.Event()
        self._watch_task = asyncio.create_task(
            watch_tree(self.root, self.update_file, self.update_tree, self.remove_file, self._watch_stop)
        )

    async def stop_watching(self) -> None:
        if self._watch_stop is not None:
            self._watch_stop.set()
        if self._watch_task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch_task
        self._watch_task = None

    def close(self) -> None:
        if self._watch_task is not None and not self._watch_task.done():
            self._watch_task.cancel()
        self.db.close()
