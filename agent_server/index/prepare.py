"""The CPU half of indexing (read, hash, sniff, chunk, FTS strings): pure functions a process pool can run."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..errors import SandboxError
from ..tools.sandbox import read_regular
from .chunker import chunk_text
from .scanner import SNIFF_BYTES, looks_binary
from .tokenize import body_terms, expand_identifiers, identifiers

MIN_REF_LEN = 3  # shorter names (`i`, `df`, `ok`) say nothing about which file uses which
Status = Literal["indexed", "unchanged", "binary", "unreadable"]


@dataclass(frozen=True)
class PreparedChunk:
    """One chunk with the strings its FTS row needs and the short names it defines."""

    start_line: int
    end_line: int
    kind: str
    symbol: str | None
    text: str
    fts_symbols: str
    fts_body: str
    defs: tuple[str, ...]


@dataclass
class PreparedFile:
    """Everything the writer stores for one file; `status` says whether there is anything to store."""

    path: str
    size: int
    mtime_ns: int
    status: Status
    digest: str = ""
    language: str | None = None
    chunks: list[PreparedChunk] = field(default_factory=list)
    refs: str = ""  # "name count name count ...": identifiers this file uses (one row, not one per name)


def encode_refs(refs: Counter[str], min_len: int = 1) -> str:
    """`name count` pairs of the names at least `min_len` long, in first-seen order."""
    return " ".join(f"{name} {n}" for name, n in refs.items() if len(name) >= min_len)


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def prepare_data(path: str, data: bytes, size: int, mtime_ns: int, old_hash: str | None) -> PreparedFile:
    """Chunk `data` unless it is binary or hashes to `old_hash` (then only the stat fields need refreshing)."""
    digest = content_hash(data)
    if digest == old_hash:
        return PreparedFile(path, size, mtime_ns, "unchanged", digest)
    if looks_binary(data[:SNIFF_BYTES]):
        return PreparedFile(path, size, mtime_ns, "binary", digest)
    chunked = chunk_text(path, data.decode("utf-8", errors="replace"), count_refs=False)
    chunks: list[PreparedChunk] = []
    refs: Counter[str] = Counter()
    for c in chunked.chunks:
        # Chunks cover every non-blank line once, so their identifiers are the file's references.
        names = identifiers(c.text)
        refs.update(names)  # short names are dropped once per file below, not tested once per occurrence
        short = [d.rsplit(".", 1)[-1] for d in c.defs]
        defs = tuple(d for d in dict.fromkeys(short) if d and d != "<anonymous>")
        chunks.append(
            PreparedChunk(
                c.start_line,
                c.end_line,
                c.kind,
                c.symbol,
                c.text,
                expand_identifiers(short),
                body_terms(c.text, names),
                defs,
            )
        )
    refs_row = encode_refs(refs, MIN_REF_LEN)
    return PreparedFile(path, size, mtime_ns, "indexed", digest, chunked.language, chunks, refs_row)


def prepare_batch(root: str, files: list[tuple[str, int, int, str | None]]) -> list[PreparedFile]:
    """Prepare (path, size, mtime_ns, old hash) entries under `root`; module-level so worker processes can run it."""
    out: list[PreparedFile] = []
    base = Path(root)
    for path, size, mtime_ns, old_hash in files:
        try:
            data = read_regular(base / path, max(size, 0) + (1 << 20), truncate=True)  # never a FIFO or a device
        except (OSError, SandboxError):
            out.append(PreparedFile(path, size, mtime_ns, "unreadable"))
            continue
        out.append(prepare_data(path, data, size, mtime_ns, old_hash))
    return out
