"""A cold build writes while the worker processes chunk (index/workspace_index.py `_store`): everything lands, in
scan order, whatever the timing; real files, real worker processes, real SQLite."""

from __future__ import annotations

from pathlib import Path

from agent_server.index.scanner import Scanner
from agent_server.index.workspace_index import BATCH_FILES, WorkspaceIndex


async def test_a_pipelined_cold_build_stores_every_file_in_scan_order(workspace: Path, tmp_path: Path) -> None:
    count = BATCH_FILES * 9 + 5  # several batches in flight, a short last one
    for i in range(count):
        sub = workspace / f"pkg_{i % 7}"
        sub.mkdir(exist_ok=True)
        (sub / f"mod_{i}.py").write_text(f"def function_{i}():\n    return helper_{i % 5}()\n")
    reported: list[int] = []

    async def progress(done: int, total: int, path: str) -> None:
        reported.append(done)

    index = WorkspaceIndex(workspace, tmp_path / "i.db")
    try:
        stats = await index.build(progress)
        assert (stats.files_processed, stats.chunks, stats.cancelled) == (count, count, False)
        assert reported == sorted(reported) and reported[-1] == count
        stored = [str(r[0]) for r in index.db.query("SELECT path FROM files ORDER BY id")]
        assert stored == [f.path for f in Scanner(workspace).walk()]  # ids follow the scan: builds are repeatable
        definer = index.db.query(
            "SELECT f.path FROM defs d JOIN files f ON f.id = d.file_id WHERE d.name = 'function_500'"
        )
        assert definer == [("pkg_3/mod_500.py",)]
    finally:
        index.close()
