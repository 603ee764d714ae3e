"""The workspace index as a service of a running server: background builds with progress, saves, the watcher."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..client_contract import AgentClient
from ..config import IndexConfig
from ..tools.base import Services

if TYPE_CHECKING:  # the index (numpy, SQLite) loads with the service, not with this module
    from .embeddings import Embedder

log = logging.getLogger(__name__)


class IndexService:
    """One index for the workspace root; `codebase_search` sees it once a build has completed."""

    def __init__(
        self,
        root: Path,
        config: IndexConfig,
        services: Services,
        on_built: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        from .workspace_index import WorkspaceIndex

        self.root = root
        self.config = config
        self.services = services
        self.on_built = on_built  # e.g. start embedding the new chunks in the background
        self._embed: asyncio.Task[int] | None = None
        self.index = WorkspaceIndex(root, max_file_bytes=config.max_file_bytes)
        self._build: asyncio.Task[dict[str, Any]] | None = None
        self._cancel = asyncio.Event()
        if self.index.status().files:
            services["index"] = self.index  # built by an earlier run: usable at once, refreshed by the next build

    @property
    def built_before(self) -> bool:
        return bool(self.index.status().files)

    @property
    def building(self) -> bool:
        return self._build is not None and not self._build.done()

    def start(self, client: AgentClient) -> bool:
        """Start a build in the background; False if one is already running."""
        if self.building:
            return False
        self._cancel = asyncio.Event()
        self._build = asyncio.ensure_future(self._run(client))
        return True

    async def wait(self) -> dict[str, Any] | None:
        return await self._build if self._build is not None else None

    async def _run(self, client: AgentClient) -> dict[str, Any]:
        progress = await client.begin_progress("Indexing workspace", cancellable=True)
        cancel = self._cancel

        async def report(done: int, total: int, path: str) -> None:
            if progress.cancelled:
                cancel.set()
            pct = int(done * 100 / total) if total else 100
            await progress.report(f"{done} of {total} files", pct)

        try:
            stats = await self.index.build(report, cancel)
        except Exception as exc:
            log.error("indexing %s failed: %s", self.root, exc)
            await progress.end(f"failed: {exc}")
            raise
        if stats.cancelled:
            await progress.end(f"cancelled after {stats.files_processed} files")
        else:
            await progress.end(
                f"{stats.files_total} files, {stats.chunks} chunks ({stats.files_processed} processed) "
                f"in {stats.seconds:.1f}s"
            )
            self.services["index"] = self.index
            if self.on_built is not None:
                await self.on_built()
            if self.config.watch:
                try:
                    self.index.start_watching()
                except Exception as exc:  # the index still works, only without live updates
                    log.warning("file watcher unavailable: %s", exc)
        return {
            "files": stats.files_total,
            "processed": stats.files_processed,
            "chunks": stats.chunks,
            "cancelled": stats.cancelled,
            "seconds": round(stats.seconds, 3),
        }

    def cancel(self) -> None:
        self._cancel.set()

    def start_embedding(self, embedder: Embedder, idle: asyncio.Event) -> None:
        """Embed chunks without vectors in the background, pausing whenever a chat turn is running. Searches fuse the
        vectors with the lexical ranking as they arrive; a failing embedding server leaves search lexical."""
        self.index.embedder = embedder
        if self._embed is None or self._embed.done():
            self._embed = asyncio.ensure_future(self._embed_all(embedder, idle))

    async def _embed_all(self, embedder: Embedder, idle: asyncio.Event) -> int:
        try:
            done = await self.index.embed_pending(idle=idle, cancel=self._cancel)
        except Exception as exc:  # the server is down, or answered nonsense: the lexical ranking still works
            log.warning(
                "embedding chunks with %s stopped (%s): search ranks without vectors for chunks not embedded yet; "
                "the next index build retries",
                embedder.model,
                str(exc) or type(exc).__name__,
            )
            return 0
        log.info("embedded %d chunks with %s", done, embedder.model)
        return done

    async def embedding_done(self) -> int:
        return await self._embed if self._embed is not None else 0

    async def saved(self, path: Path, text: str | None) -> None:
        if not _inside(path, self.root):
            return
        self.index.note_edited(path)
        await self.index.update_file(path, text)

    def opened(self, path: Path) -> None:
        if _inside(path, self.root):
            self.index.note_open(path)

    def closed(self, path: Path) -> None:
        if _inside(path, self.root):
            self.index.note_closed(path)

    def status(self) -> dict[str, Any]:
        st = self.index.status()
        return {
            "root": str(self.root),
            "files": st.files,
            "chunks": st.chunks,
            "embeddings": st.embeddings,
            "lastBuild": st.last_build,
            "building": self.building or st.building,
        }

    async def search(self, query: str, limit: int, path: str | None) -> list[dict[str, Any]]:
        hits = await self.index.search(query, limit, path)
        return [
            {
                "path": str(h.path),
                "startLine": h.start_line,
                "endLine": h.end_line,
                "score": round(float(h.score), 4),
                "symbol": h.symbol,
                "snippet": h.snippet,
            }
            for h in hits
        ]

    async def aclose(self) -> None:
        self._cancel.set()
        for task in (self._build, self._embed):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        try:
            await self.index.stop_watching()
        finally:
            self.index.close()


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
        return True
    except ValueError:
        return False
