"""The SQLite connection: WAL, busy timeout, foreign keys, and explicit write transactions.

Durability: WAL with `synchronous=NORMAL`. A commit has been written to the WAL file (the OS page cache) before
`COMMIT` returns, so a committed message survives the process being killed (SIGKILL, a crash); only a power loss or
an OS crash can lose the last few commits, and even then the file is never corrupt. `FULL` (an fsync per commit)
is available for the paranoid via `synchronous="FULL"`.

Several server processes (VS Code and Neovim at once) may share the file: WAL lets readers and one writer work
together, `busy_timeout` makes a writer wait instead of failing, and every write transaction is `BEGIN IMMEDIATE`
so two processes never deadlock upgrading a read lock to a write lock.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from ..errors import StoreError

Synchronous = Literal["NORMAL", "FULL"]


class StoreBusy(Exception):
    """`write(wait=False)` could not start at once: another thread or process is writing."""


class Database:
    """One connection guarded by a lock: safe to call from any thread (callers use `asyncio.to_thread`)."""

    def __init__(self, path: Path, *, synchronous: Synchronous = "NORMAL", busy_timeout_ms: int = 10_000) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, so nothing is left in an implicit transaction.
            self._conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=30)
            self._conn.row_factory = sqlite3.Row
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute(f"PRAGMA synchronous = {synchronous}")
            self._conn.execute("PRAGMA foreign_keys = ON")
        except (sqlite3.Error, OSError) as exc:  # OSError: a parent directory that cannot be made
            raise StoreError(f"cannot open the session store at {path}: {exc}") from exc
        self._busy_timeout_ms = int(busy_timeout_ms)
        self._lock = threading.RLock()
        self._closed = False

    @contextmanager
    def write(self, wait: bool = True) -> Iterator[sqlite3.Connection]:
        """A write transaction (BEGIN IMMEDIATE ... COMMIT); rolled back if the block raises. With `wait=False`
        it raises StoreBusy instead of waiting for another writer (so the event loop may call it)."""
        if not self._lock.acquire(blocking=wait):
            raise StoreBusy()
        try:
            conn = self._live()
            try:
                if wait:
                    conn.execute("BEGIN IMMEDIATE")
                else:
                    self._begin_nowait(conn)
            except sqlite3.Error as exc:
                raise StoreError(f"the session store at {self.path} is busy or unwritable: {exc}") from exc
            try:
                yield conn
            except sqlite3.Error as exc:
                conn.execute("ROLLBACK")
                raise StoreError(f"session store write failed ({self.path}): {exc}") from exc
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                conn.execute("ROLLBACK")
                raise StoreError(f"cannot commit to the session store at {self.path}: {exc}") from exc
        finally:
            self._lock.release()

    def _begin_nowait(self, conn: sqlite3.Connection) -> None:
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise StoreBusy() from exc
            raise
        finally:
            conn.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several SELECTs."""
        with self._lock:
            conn = self._live()
            conn.execute("BEGIN")
            try:
                yield conn
            except sqlite3.Error as exc:
                raise StoreError(f"session store read failed ({self.path}): {exc}") from exc
            finally:
                conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()

    def _live(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreError(f"the session store at {self.path} is closed")
        return self._conn
