"""One lazily started process pool per server process for chunking (tree-sitter and tokenizing hold the GIL)."""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

_pool: ProcessPoolExecutor | None = None
_broken = False  # workers could not run here (e.g. an unguarded __main__ script); stay in-process from then on
_lock = threading.Lock()


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


PARENT_CHECK_S = 0.2


def _exit_with_parent(parent: int) -> None:
    """A worker outlives a server killed with SIGKILL (nobody shuts the pool down), holding the pipes it inherited
    open, so the editor never sees the server's output end: leave as soon as the parent is gone."""
    while True:
        time.sleep(PARENT_CHECK_S)
        if os.getppid() != parent:
            os._exit(0)


def _warm() -> None:
    """Import the chunker and load the Python grammar once per worker, not on its first batch."""
    # Workers inherit the server's stdout, which carries JSON-RPC: anything they print goes to stderr instead, and
    # they keep no handle on the wire (nor on stdin) that could hold it open after the server died.
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True, name="parent-watch").start()
    from .chunker import chunk_text

    chunk_text("warm.py", "def warm():\n    pass\n")


def shared_pool() -> ProcessPoolExecutor | None:
    """The pool (spawned, so safe beside the server's threads), or None on a single core."""
    global _pool
    workers = usable_cpus()
    if workers < 2 or _broken:
        return None
    with _lock:
        if _pool is None:
            _pool = _start(workers)
        return _pool


def _start(workers: int) -> ProcessPoolExecutor:
    """A spawned worker starts as `python -c ...` in the server's working directory, which is the workspace, and
    `-c` puts that directory first on sys.path until the worker has read the server's: a repository's
    `multiprocessing.py` (or `pickle.py`, ...) would run inside it, and so in the resource tracker multiprocessing
    starts. PYTHONSAFEPATH (`-P`) keeps it off, set only while they are spawned, here and all at once (each no-op
    keeps its worker busy past this loop, so every submit spawns one), so the user's own commands never inherit it."""
    saved = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        # (creating the pool starts multiprocessing's resource tracker the same way, once per server)
        ctx = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_warm)
        for _ in range(workers):
            pool.submit(int)
    finally:
        if saved is None:
            del os.environ["PYTHONSAFEPATH"]
        else:
            os.environ["PYTHONSAFEPATH"] = saved
    return pool


def discard_pool(broken: bool = False, wait: bool = False) -> None:
    """Shut the pool down (`wait`: until its workers have exited); `broken` also stops later builds from starting
    another."""
    global _pool, _broken
    with _lock:
        pool, _pool = _pool, None
        _broken = _broken or broken
    if pool is not None:
        pool.shutdown(wait=wait, cancel_futures=True)


def _noop() -> None:
    return None


def warm_pool() -> None:
    """Start the workers now (they take a moment to import) so they are ready when the first batch is."""
    pool = shared_pool()
    if pool is not None:
        for _ in range(usable_cpus()):
            pool.submit(_noop)
