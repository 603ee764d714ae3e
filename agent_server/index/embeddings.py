"""Optional chunk embeddings: a batched background pass through the provider, float16 blobs, exact cosine."""

from __future__ import annotations

import asyncio
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ..llm.base import Provider
from .db import IndexDB

MAX_EMBED_CHARS = 2000


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors; `model` names the vector space (vectors of another model are ignored)."""

    model: str

    async def embed(self, texts: list[str]) -> list[list[float]]: ...


class ProviderEmbedder:
    """An `Embedder` backed by `Provider.embed`, in batches."""

    def __init__(self, provider: Provider, model: str, batch_size: int = 32) -> None:
        self.provider = provider
        self.model = model
        self.batch_size = batch_size

    async def embed(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for i in range(0, len(texts), self.batch_size):
            out.extend(await self.provider.embed(self.model, texts[i : i + self.batch_size]))
        return out


def to_blob(vec: list[float]) -> bytes:
    arr = np.asarray(vec, dtype=np.float32)
    norm = float(np.linalg.norm(arr)) or 1.0
    return (arr / norm).astype(np.float16).tobytes()


def load_vectors(db: IndexDB, model: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]] | None:
    """All stored unit vectors of `model` as (chunk ids, matrix), or None when there are none."""
    rows = db.query("SELECT chunk_id, vector FROM embeddings WHERE model = ?", (model,))
    if not rows:
        return None
    dim = len(bytes(rows[0][1])) // 2
    rows = [r for r in rows if len(bytes(r[1])) // 2 == dim]
    ids = np.array([int(r[0]) for r in rows], dtype=np.int64)
    mat = np.frombuffer(b"".join(bytes(r[1]) for r in rows), dtype=np.float16).reshape(len(rows), dim)
    return ids, mat.astype(np.float32)


def query_vector(vec: list[float]) -> npt.NDArray[np.float32]:
    arr = np.asarray(vec, dtype=np.float32)
    return arr / (float(np.linalg.norm(arr)) or 1.0)


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
