"""Optional chunk embeddings: a batched background pass through the provider, float16 blobs, exact cosine."""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections import Counter
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ..errors import LLMHTTPError
from ..llm.base import Provider
from .db import IndexDB

log = logging.getLogger(__name__)

MAX_EMBED_CHARS = 2000
MIN_EMBED_CHARS = 256  # the shortest cut tried when the server refuses long texts
QUERY_TIMEOUT_S = 10.0  # a query waits this long for its vector, then ranks lexically
RETRY_AFTER_S = 60.0  # after a failed query embedding, searches skip the embedding server this long


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors; `model` names the vector space (vectors of another model are ignored)."""

    model: str

    async def embed(self, texts: list[str]) -> list[list[float]]: ...


class ProviderEmbedder:
    """An `Embedder` backed by `Provider.embed`, in batches. Texts longer than the model takes are cut: many embedding
    models read 512 tokens at most and llama-server refuses longer input (HTTP 500 "input is too large") instead of
    truncating as Ollama does, so after an HTTP error the cut is halved (down to `MIN_EMBED_CHARS`) and kept."""

    def __init__(self, provider: Provider, model: str, batch_size: int = 32, max_chars: int = 8000) -> None:
        self.provider = provider
        self.model = model
        self.batch_size = batch_size
        self.max_chars = max_chars

    async def embed(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for i in range(0, len(texts), self.batch_size):
            out.extend(await self._embed_batch(texts[i : i + self.batch_size]))
        return out

    async def _embed_batch(self, batch: list[str]) -> list[list[float]]:
        while True:
            cut = [t[: self.max_chars] for t in batch]
            try:
                return await self.provider.embed(self.model, cut)
            except LLMHTTPError:
                longest = max(map(len, cut), default=0)
                if longest <= MIN_EMBED_CHARS:
                    raise  # not a length problem
                self.max_chars = max(MIN_EMBED_CHARS, longest // 2)
                log.info("embedding model %s refused %d characters; cutting texts to %d", self.model, longest,
                         self.max_chars)  # fmt: skip


def to_blob(vec: list[float]) -> bytes:
    arr = np.asarray(vec, dtype=np.float32)
    norm = float(np.linalg.norm(arr)) or 1.0
    return (arr / norm).astype(np.float16).tobytes()


def load_vectors(db: IndexDB, model: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]] | None:
    """All stored unit vectors of `model` as (chunk ids, matrix), or None when there are none."""
    rows = db.query("SELECT chunk_id, vector FROM embeddings WHERE model = ?", (model,))
    if not rows:
        return None
    dims = Counter(len(bytes(r[1])) // 2 for r in rows)
    dim = dims.most_common(1)[0][0]
    if len(dims) > 1:  # the model behind this name changed: only the majority's vectors are comparable
        log.warning(
            "embedding model %s: vectors of %d dimensions found, using the %d-dimension ones", model, len(dims), dim
        )
    rows = [r for r in rows if len(bytes(r[1])) // 2 == dim]
    ids = np.array([int(r[0]) for r in rows], dtype=np.int64)
    mat = np.frombuffer(b"".join(bytes(r[1]) for r in rows), dtype=np.float16).reshape(len(rows), dim)
    return ids, mat.astype(np.float32)


def query_vector(vec: list[float]) -> npt.NDArray[np.float32]:
    arr = np.asarray(vec, dtype=np.float32)
    return arr / (float(np.linalg.norm(arr)) or 1.0)


_failed_at: weakref.WeakKeyDictionary[Embedder, float] = weakref.WeakKeyDictionary()


async def embed_query(embedder: Embedder, query: str, dim: int) -> npt.NDArray[np.float32] | None:
    """The query's unit vector, or None (ranking stays lexical) when the embedding server fails, is slow, or answers
    with another dimension than the stored chunk vectors (`dim`). After a failure, searches skip the server for
    `RETRY_AFTER_S` instead of each paying for the timeout; one warning is logged per failure, never the query."""
    failed = _failed_at.get(embedder)
    if failed is not None and time.monotonic() - failed < RETRY_AFTER_S:
        return None
    try:
        vectors = await asyncio.wait_for(embedder.embed([query]), QUERY_TIMEOUT_S)
        if len(vectors) != 1:
            raise ValueError(f"asked for 1 embedding, got {len(vectors)}")
        vec = query_vector(vectors[0])
    except Exception as exc:  # TimeoutError included: search must answer without the vectors
        _mark_failed(embedder)
        log.warning("query embedding with %s failed (%s): ranking without vectors", embedder.model, _describe(exc))
        return None
    if vec.shape != (dim,):
        _mark_failed(embedder)
        log.warning(
            "embedding model %s answered a %d-dimension query vector but the index holds %d-dimension chunk vectors "
            "(was the model changed under the same name?): ranking without vectors",
            embedder.model,
            vec.size,
            dim,
        )
        return None
    _failed_at.pop(embedder, None)
    return vec


def _mark_failed(embedder: Embedder) -> None:
    try:
        _failed_at[embedder] = time.monotonic()
    except TypeError:  # an embedder without weak references just gets no back-off
        pass


def _describe(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


async def embed_pending(
    db: IndexDB,
    embedder: Embedder,
    *,
    batch_size: int = 32,
    idle: asyncio.Event | None = None,
    cancel: asyncio.Event | None = None,
) -> int:
    """Embed chunks that have no vector yet; waits for `idle` (set when no chat is streaming) before each batch."""
    done = 0
    while cancel is None or not cancel.is_set():
        if idle is not None:
            await idle.wait()
        rows = await asyncio.to_thread(
            db.query,
            "SELECT c.id, f.path, c.symbol, c.text FROM chunks c JOIN files f ON f.id = c.file_id "
            "LEFT JOIN embeddings e ON e.chunk_id = c.id AND e.model = ? WHERE e.chunk_id IS NULL LIMIT ?",
            (embedder.model, batch_size),
        )
        if not rows:
            break
        texts = [f"{r[1]} {r[2] or ''}\n{str(r[3])[:MAX_EMBED_CHARS]}" for r in rows]
        vectors = await embedder.embed(texts)

        def store(rows: list[tuple[Any, ...]] = rows, vectors: list[list[float]] = vectors) -> None:
            with db.transaction() as conn:
                conn.executemany(
                    "INSERT OR REPLACE INTO embeddings(chunk_id, model, vector) VALUES (?, ?, ?)",
                    [(int(r[0]), embedder.model, to_blob(v)) for r, v in zip(rows, vectors, strict=True)],
                )

        await asyncio.to_thread(store)
        done += len(rows)
    return done
