"""The index database: file catalog (content hashes), chunks, FTS5, symbols, references, embeddings."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import StoreError
from .tokenize import path_terms

if TYPE_CHECKING:  # the search path must not load the chunker (tree-sitter) just for a type
    from .prepare import PreparedFile

SCHEMA_VERSION = 3  # an index of another version is dropped and rebuilt (it is only a cache)
CONTENT_VERSION = "content_version"  # meta key bumped by every write that adds, changes or removes a file
STEM_CACHE_MAX = 50_000
# Path matches weigh most, then defined symbols, then the body text. Queries order by these expressions rather than
# by FTS5's `rank` column: same scores, but `ORDER BY rank` sorts every match before the LIMIT applies (about a
# third slower on a large repository).
CHUNK_BM25 = "bm25(chunks_fts, 4.0, 3.0, 1.0)"
FILE_BM25 = "bm25(files_fts, 4.0, 1.0)"
_TOKENIZER = "\"porter unicode61 tokenchars '_'\""
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, hash TEXT NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, language TEXT, indexed_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
    kind TEXT NOT NULL, symbol TEXT, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts
    USING fts5(path, symbols, body, tokenize="porter unicode61 tokenchars '_'");
CREATE VIRTUAL TABLE IF NOT EXISTS files_fts
    USING fts5(path, body, tokenize="porter unicode61 tokenchars '_'");
CREATE TABLE IF NOT EXISTS defs (name TEXT NOT NULL, file_id INTEGER NOT NULL, chunk_id INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS defs_name ON defs(name);
CREATE INDEX IF NOT EXISTS defs_file ON defs(file_id);
CREATE TABLE IF NOT EXISTS refs (file_id INTEGER PRIMARY KEY, names TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS embeddings (chunk_id INTEGER PRIMARY KEY, model TEXT NOT NULL, vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS graph_cache (id INTEGER PRIMARY KEY CHECK (id = 1), stamp TEXT NOT NULL, data BLOB NOT NULL);
"""


def default_db_path(root: Path) -> Path:
    """`<user cache>/agent-server/index/<sha of the resolved root>.db`."""
    import hashlib

    import platformdirs

    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:20]
    return Path(platformdirs.user_cache_dir("agent-server")) / "index" / f"{digest}.db"


@dataclass(frozen=True)
class CatalogEntry:
    id: int
    hash: str
    size: int
    mtime_ns: int


class IndexDB:
    """One SQLite connection (WAL) shared by worker threads under a lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self._drop_other_versions()
            fresh = self.conn.execute("SELECT name FROM sqlite_master WHERE name = 'chunks_fts'").fetchone() is None
            self.conn.executescript(SCHEMA)
            if fresh:  # the `rank` column scores like CHUNK_BM25 / FILE_BM25 (for ad-hoc queries)
                self.conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('rank', 'bm25(4.0, 3.0, 1.0)')")
                self.conn.execute("INSERT INTO files_fts(files_fts, rank) VALUES ('rank', 'bm25(4.0, 1.0)')")
            self.conn.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the index database {path}: {exc}") from exc
        self.lock = threading.RLock()
        self._local = threading.local()  # each thread's own read connection (`query_beside`)
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()  # not `lock`: a reader may be opened while a `query` holds that one
        self._stemmer_ready = False
        self._stem_cache: dict[str, str | None] = {}  # None: the tokenizer keeps no token of the term
        self.generation = 0  # bumped on every write so caches (graph, vectors) know to refresh

    def _drop_other_versions(self) -> None:
        has_meta = self.conn.execute("SELECT name FROM sqlite_master WHERE name = 'meta'").fetchone()
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() if has_meta else None
        if row is None or row[0] == str(SCHEMA_VERSION):
            return
        tables = [r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for name in ("chunks_fts", "files_fts", *tables):
            if not name.startswith(("sqlite_", "chunks_fts_", "files_fts_")):
                self.conn.execute(f'DROP TABLE IF EXISTS "{name}"')

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
            self.generation += 1

    def query(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self.lock:
            return list(self.conn.execute(sql, params))

    def query_beside(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """`query` on the calling thread's own read connection, without the lock, so that it runs beside a `query`
        of another thread (WAL lets readers and the writer go on together; SQLite releases the GIL while it works).
        It sees the last committed state, like any reader."""
        conn: sqlite3.Connection | None = getattr(self._local, "reader", None)
        if conn is None:
            conn = sqlite3.connect(str(self.path), check_same_thread=False)
            self._local.reader = conn
            with self._readers_lock:
                self._readers.append(conn)
        return list(conn.execute(sql, params))

    def stems(self, terms: Sequence[str]) -> dict[str, str]:
        """Each term as the FTS5 porter tokenizer stores it (`parsing` -> `pars`), via a scratch in-memory table;
        remembered, since a term's stem never changes (a ranking asks for the same terms several times)."""
        with self.lock:
            cache = self._stem_cache
            missing = [t for t in dict.fromkeys(terms) if t not in cache]
            if missing:
                if len(cache) + len(missing) > STEM_CACHE_MAX:
                    cache.clear()
                found = self._stems_uncached(missing)
                for term in missing:
                    cache[term] = found.get(term)
            return {t: stem for t in terms if (stem := cache.get(t)) is not None}

    def _stems_uncached(self, terms: Sequence[str]) -> dict[str, str]:
        with self.lock:
            if not self._stemmer_ready:
                self.conn.execute(
                    f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.stemmer USING fts5(t, tokenize={_TOKENIZER})"
                )
                self.conn.execute(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.stemmer_v USING fts5vocab(temp, stemmer, 'instance')"
                )
                self._stemmer_ready = True
            self.conn.execute("DELETE FROM temp.stemmer")
            self.conn.executemany("INSERT INTO temp.stemmer(rowid, t) VALUES (?, ?)", list(enumerate(terms)))
            rows = self.conn.execute("SELECT doc, term FROM temp.stemmer_v").fetchall()
        out: dict[str, str] = {}
        for doc, term in rows:
            out.setdefault(terms[int(doc)], str(term))
        return out

    def doc_freqs(self) -> tuple[dict[str, int], int]:
        """Chunks containing each stemmed term, and the chunk count, read on a separate connection (no lock held)."""
        conn = sqlite3.connect(str(self.path), check_same_thread=False)
        try:
            conn.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, chunks_fts, 'row')")
            freqs = {str(t): int(d) for t, d in conn.execute("SELECT term, doc FROM temp.vocab")}
            total = int(conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
        finally:
            conn.close()
        return freqs, total

    def doc_freqs_of(self, stems: Sequence[str]) -> tuple[dict[str, int], int]:
        """`doc_freqs` for the given stemmed terms only: a one-shot search need not read the whole vocabulary."""
        with self.lock:
            self.conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab_row USING fts5vocab(main, chunks_fts, 'row')"
            )
            rows = self.query_in("SELECT term, doc FROM temp.vocab_row WHERE term IN ({marks})", dict.fromkeys(stems))
            freqs = {str(t): int(d) for t, d in rows}
            total = int(self.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
        return freqs, total

    def first_chunks(self, file_ids: Iterable[int]) -> dict[int, int]:
        """file id -> id of its first chunk (lowest start line), in one query per 500 files rather than one each."""
        # SQLite takes a bare column (id) from the row that holds the MIN.
        sql = "SELECT file_id, id, MIN(start_line) FROM chunks WHERE file_id IN ({marks}) GROUP BY file_id"
        return {int(fid): int(cid) for fid, cid, _ in self.query_in(sql, file_ids)}

    def query_in(self, sql: str, values: Iterable[object]) -> list[tuple[Any, ...]]:
        """`query` of `sql` whose `{marks}` is an `IN` list of `values`, in batches of 500 (SQLite caps the number
        of parameters of one statement), the rows of all batches together."""
        items = list(values)
        rows: list[tuple[Any, ...]] = []
        for start in range(0, len(items), 500):
            batch = items[start : start + 500]
            rows.extend(self.query(sql.format(marks=",".join("?" * len(batch))), batch))
        return rows

    def catalog(self) -> dict[str, CatalogEntry]:
        rows = self.query("SELECT path, id, hash, size, mtime_ns FROM files")
        return {str(r[0]): CatalogEntry(int(r[1]), str(r[2]), int(r[3]), int(r[4])) for r in rows}

    def catalog_entry(self, path: str) -> CatalogEntry | None:
        rows = self.query("SELECT id, hash, size, mtime_ns FROM files WHERE path = ?", (path,))
        return CatalogEntry(*(int(rows[0][0]), str(rows[0][1]), int(rows[0][2]), int(rows[0][3]))) if rows else None

    def files_stamp(self) -> str:
        """Changes whenever a file is added, changed or removed (the symbol graph depends on nothing else): a
        counter the writes bump in their own transaction, so reading it costs one row, not one per file."""
        return f"content-{self.get_meta(CONTENT_VERSION) or 0}"

    @staticmethod
    def _bump_content_version(conn: sqlite3.Connection) -> None:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
            (CONTENT_VERSION,),
        )

    def graph_blob(self, stamp: str) -> bytes | None:
        rows = self.query("SELECT data FROM graph_cache WHERE id = 1 AND stamp = ?", (stamp,))
        return bytes(rows[0][0]) if rows else None

    def save_graph_blob(self, stamp: str, data: bytes) -> None:
        """Outside `transaction()`: a cache of derived data is not a write that should invalidate caches."""
        with self.lock:
            self.conn.execute("INSERT OR REPLACE INTO graph_cache(id, stamp, data) VALUES (1, ?, ?)", (stamp, data))

    def get_meta(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    @staticmethod
    def _delete_file_rows(conn: sqlite3.Connection, file_id: int) -> None:
        conn.execute("DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file_id = ?)", (file_id,))
        conn.execute("DELETE FROM embeddings WHERE chunk_id IN (SELECT id FROM chunks WHERE file_id = ?)", (file_id,))
        conn.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
        conn.execute("DELETE FROM defs WHERE file_id = ?", (file_id,))
        conn.execute("DELETE FROM refs WHERE file_id = ?", (file_id,))
        conn.execute("DELETE FROM files_fts WHERE rowid = ?", (file_id,))

    def write_batch(self, conn: sqlite3.Connection, files: Sequence[PreparedFile]) -> int:
        """Store prepared files (replacing what was there) with one `executemany` per table; call inside
        `transaction()`. Returns the number of chunks written."""
        next_id = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM chunks").fetchone()[0]) + 1
        now = time.time()
        chunk_rows: list[tuple[object, ...]] = []
        fts_rows: list[tuple[object, ...]] = []
        def_rows: list[tuple[object, ...]] = []
        ref_rows: list[tuple[int, str]] = []
        file_rows: list[tuple[int, str, str]] = []
        if any(pf.status != "unchanged" for pf in files):
            self._bump_content_version(conn)  # (a binary or unreadable file is removed below)
        for pf in files:
            if pf.status == "unchanged":
                self.touch_file(conn, pf.path, pf.size, pf.mtime_ns)
                continue
            if pf.status != "indexed":
                self.remove_file(conn, pf.path)
                continue
            row = conn.execute("SELECT id FROM files WHERE path = ?", (pf.path,)).fetchone()
            if row is None:
                cur = conn.execute(
                    "INSERT INTO files(path, hash, size, mtime_ns, language, indexed_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (pf.path, pf.digest, pf.size, pf.mtime_ns, pf.language, now),
                )
                file_id = int(cur.lastrowid or 0)
            else:
                file_id = int(row[0])
                self._delete_file_rows(conn, file_id)
                conn.execute(
                    "UPDATE files SET hash = ?, size = ?, mtime_ns = ?, language = ?, indexed_at = ? WHERE id = ?",
                    (pf.digest, pf.size, pf.mtime_ns, pf.language, now, file_id),
                )
            pterms = pf.path + " " + path_terms(pf.path)
            for c in pf.chunks:
                cid = next_id
                next_id += 1
                chunk_rows.append((cid, file_id, c.start_line, c.end_line, c.kind, c.symbol, c.text))
                fts_rows.append((cid, pterms, c.fts_symbols, c.fts_body))
                def_rows.extend((d, file_id, cid) for d in c.defs)
            ref_rows.append((file_id, pf.refs))
            # The whole file as one document too: a bug report's words spread over a file, not one chunk.
            file_rows.append((file_id, pterms, "\n".join(c.fts_symbols + "\n" + c.fts_body for c in pf.chunks)))
        conn.executemany(
            "INSERT INTO chunks(id, file_id, start_line, end_line, kind, symbol, text) VALUES (?, ?, ?, ?, ?, ?, ?)",
            chunk_rows,
        )
        conn.executemany("INSERT INTO chunks_fts(rowid, path, symbols, body) VALUES (?, ?, ?, ?)", fts_rows)
        conn.executemany("INSERT INTO defs(name, file_id, chunk_id) VALUES (?, ?, ?)", def_rows)
        conn.executemany("INSERT INTO refs(file_id, names) VALUES (?, ?)", ref_rows)
        conn.executemany("INSERT INTO files_fts(rowid, path, body) VALUES (?, ?, ?)", file_rows)
        return len(chunk_rows)

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """Skip fsyncs while a build writes many batches: the index is a cache and a crash only costs a rebuild."""
        with self.lock:
            self.conn.execute("PRAGMA synchronous=OFF")
        try:
            yield
        finally:
            with self.lock:
                self.conn.execute("PRAGMA synchronous=NORMAL")

    def touch_file(self, conn: sqlite3.Connection, path: str, size: int, mtime_ns: int) -> None:
        conn.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?", (size, mtime_ns, path))

    def remove_file(self, conn: sqlite3.Connection, path: str) -> bool:
        row = conn.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
        if row is None:
            return False
        self._delete_file_rows(conn, int(row[0]))
        conn.execute("DELETE FROM files WHERE id = ?", (int(row[0]),))
        self._bump_content_version(conn)
        return True

    def close(self) -> None:
        with self.lock, self._readers_lock:
            for reader in self._readers:
                reader.close()
            self._readers.clear()
            self.conn.close()
