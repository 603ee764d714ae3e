"""The one-shot CLI search (`agent-server search`, index/quick.py) against the server's ranking, and the caches the
quick path reads (saved symbol graph, content stamp, stems), on a real copy of this repository's own code."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from agent_server.index.db import IndexDB
from agent_server.index.graph import SymbolGraph
from agent_server.index.workspace_index import WorkspaceIndex

SOURCE = Path(__file__).resolve().parents[2] / "agent_server"
QUERIES = [
    "the index database stores chunks and rebuilds when the schema version differs",
    "write_batch replaces a file's chunks",
    "personalized PageRank over the file graph of definitions and references",
    'Traceback (most recent call last):\n  File "agent_server/index/db.py", line 90, in __init__\n'
    "sqlite3.OperationalError: database is locked",
    "why does SearchContext keep a suffix map of paths in search.py",
]


@pytest.fixture
def code_copy(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(SOURCE, ws / "agent_server", ignore=shutil.ignore_patterns("__pycache__"))
    return ws


async def built(ws: Path, db: Path) -> WorkspaceIndex:
    index = WorkspaceIndex(ws, db)
    stats = await index.build()
    assert stats.files_processed > 50
    return index


def cli_search(ws: Path, db: Path, query: str, files: bool) -> list[dict[str, Any]]:
    cmd = [sys.executable, "-m", "agent_server.launch", "search", "--json", "--limit", "8", "--db", str(db), "-"]
    done = subprocess.run([*cmd, *(["--files"] if files else [])], input=query, cwd=ws, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


async def test_cli_search_ranks_exactly_like_the_server(code_copy: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    index = await built(code_copy, db)
    try:
        for query in QUERIES:
            server_files = [
                (f.path, f.score, [(h.start_line, h.end_line) for h in f.chunks])
                for f in await index.search_files(query, 8)
            ]
            cli_files = [
                (f["path"], f["score"], [(h["start_line"], h["end_line"]) for h in f["chunks"]])
                for f in cli_search(code_copy, db, query, files=True)
            ]
            assert server_files and cli_files == server_files, query
            server_chunks = [(h.path, h.start_line, h.score) for h in await index.search(query, 8)]
            cli_chunks = [(h["path"], h["start_line"], h["score"]) for h in cli_search(code_copy, db, query, False)]
            assert server_chunks and cli_chunks == server_chunks, query
    finally:
        index.close()


async def test_the_saved_graph_carries_the_same_prior_and_propagation(code_copy: Path, tmp_path: Path) -> None:
    index = await built(code_copy, tmp_path / "index.db")
    try:
        fresh = SymbolGraph.load(index.db)
        saved = SymbolGraph.from_blob(fresh.to_blob())
        assert saved.file_ids == fresh.file_ids and len(saved.src) == len(fresh.src) > 0
        assert saved.prior() == fresh.prior()
        assert max(saved.prior().values()) == 1.0
        seeds = {fresh.file_ids[0]: 1.0, fresh.file_ids[-1]: 0.5}
        assert saved.pagerank(seeds) == fresh.pagerank(seeds)
        with pytest.raises(ValueError):
            SymbolGraph.from_blob(fresh.to_blob()[:-8])  # truncated: rebuilt by load_cached, never misread
    finally:
        index.close()


async def test_the_content_stamp_moves_with_content_only(code_copy: Path, tmp_path: Path) -> None:
    index = await built(code_copy, tmp_path / "index.db")
    try:
        stamp = index.db.files_stamp()
        target = code_copy / "agent_server" / "index" / "graph.py"
        target.touch()  # a new mtime, same bytes
        again = await index.build()
        assert again.files_processed == 0 and index.db.files_stamp() == stamp
        SymbolGraph.load_cached(index.db)
        assert index.db.graph_blob(stamp) is not None
        await index.update_file(target, target.read_text() + "\ndef added_here():\n    return 1\n")
        edited = index.db.files_stamp()
        assert edited != stamp and index.db.graph_blob(edited) is None  # the saved graph is stale
        target.unlink()
        await index.build()
        assert index.db.files_stamp() not in (stamp, edited)
    finally:
        index.close()


async def test_stems_and_first_chunks_match_their_one_by_one_answers(code_copy: Path, tmp_path: Path) -> None:
    index = await built(code_copy, tmp_path / "index.db")
    try:
        db = index.db
        terms = ["parsing", "indexes", "rankings", "write_batch", "", "parsing"]
        first = db.stems(terms)
        assert first == db._stems_uncached(terms) == db.stems(terms)  # cached answers equal fresh ones
        assert first["parsing"] == "pars" and "" not in first
        file_ids = [int(r[0]) for r in db.query("SELECT id FROM files ORDER BY id")]
        batched = db.first_chunks(file_ids)
        for fid in file_ids:
            row = db.query("SELECT id FROM chunks WHERE file_id = ? ORDER BY start_line, id LIMIT 1", (fid,))
            assert batched.get(fid) == (int(row[0][0]) if row else None)
    finally:
        index.close()


async def test_the_cli_maps_only_the_files_a_mention_can_name(code_copy: Path, tmp_path: Path) -> None:
    from agent_server.index.path_policy import match_path
    from agent_server.index.quick import files_named
    from agent_server.index.search_context import SearchContext, build_suffix_map

    index = await built(code_copy, tmp_path / "index.db")
    try:
        paths = {int(r[0]): str(r[1]) for r in index.db.query("SELECT id, path FROM files")}
        graph = SymbolGraph.load(index.db)
        mentions = ["./agent_server/index/db.py", "agent_server\\index\\graph.py", "agent_server/index", "nowhere.py"]
        for path in paths.values():
            parts = path.split("/")
            mentions += [path, "/".join(parts[-2:]), parts[-1], parts[-1].rsplit(".", 1)[0], "/".join(parts[:-1])]
        whole = SearchContext(graph, paths, build_suffix_map(paths))
        for mention in mentions:
            only = SearchContext(graph, paths, build_suffix_map(files_named(paths, [mention])))
            assert match_path(only, mention) == match_path(whole, mention), mention
        assert match_path(whole, "agent_server/index")  # the package's __init__.py: the check is not vacuous
        assert len(files_named(paths, ["agent_server/index/db.py"])) < len(paths) // 10
    finally:
        index.close()


def test_a_reader_beside_the_main_connection_sees_committed_rows_and_closes_with_the_index(tmp_path: Path) -> None:
    db = IndexDB(tmp_path / "i.db")
    with db.transaction() as conn:
        conn.execute("INSERT INTO meta(key, value) VALUES ('probe', 'one')")
    with ThreadPoolExecutor(1) as pool:
        # Another thread reads on its own connection while this one holds the main connection's lock.
        with db.lock:
            beside = pool.submit(db.query_beside, "SELECT value FROM meta WHERE key = 'probe'").result()
        assert beside == db.query("SELECT value FROM meta WHERE key = 'probe'") == [("one",)]
        with db.transaction() as conn:
            conn.execute("UPDATE meta SET value = 'two' WHERE key = 'probe'")
        again = pool.submit(db.query_beside, "SELECT value FROM meta WHERE key = 'probe'").result()
        assert again == [("two",)]  # the same reader, reused, sees the newer commit
        readers = list(db._readers)
        assert len(readers) == 1
        db.close()
    with pytest.raises(sqlite3.ProgrammingError):
        readers[0].execute("SELECT 1")
