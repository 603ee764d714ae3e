"""Files as results, diversified chunks, request entities, define-over-mention and test demotion on real indexes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_server.index import WorkspaceIndex
from agent_server.index.entities import extract_entities, is_example_path
from agent_server.index.query import parse_query


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def project(workspace: Path) -> Path:
    # One file with many matching functions (it must not fill the chunk list), one file that defines the routine
    # the request names, several that only call it, a test of it, an example using it and filler.
    busy = "".join(
        f"def ledger_step_{i}(ledger):\n    # reconcile the ledger balance, step {i}\n    return ledger.balance\n\n\n"
        for i in range(12)
    )
    write(workspace, "pkg/busy.py", busy)
    write(
        workspace,
        "pkg/reconcile.py",
        "def reconcile_ledger(ledger):\n    if ledger.closed:\n"
        "        raise ValueError('cannot reconcile a closed ledger account')\n    return ledger.balance\n",
    )
    for name in ("reports", "exports", "audit"):
        write(
            workspace,
            f"pkg/{name}.py",
            f"from pkg.reconcile import reconcile_ledger\n\n\ndef {name}_ledger_view(ledger):\n"
            "    # reconcile_ledger keeps the ledger balance right before we show it\n"
            "    return reconcile_ledger(ledger)\n",
        )
    write(
        workspace,
        "tests/test_reconcile.py",
        "from pkg.reconcile import reconcile_ledger\n\n\ndef test_reconcile_ledger_balance():\n"
        "    # reconcile_ledger on a ledger balance; reconcile the ledger balance\n"
        "    assert reconcile_ledger(FakeLedger()) == 0\n",
    )
    write(
        workspace,
        "examples/ledger_demo.py",
        "from pkg.reconcile import reconcile_ledger\n\n# reconcile the ledger balance: reconcile_ledger demo\n"
        "print(reconcile_ledger(open_ledger()))\n",
    )
    for i in range(20):
        write(workspace, f"pkg/filler_{i}.py", f"def filler_{i}(item):\n    return item.name + 'plain'\n")
    return workspace


async def built(project: Path, tmp_path: Path) -> WorkspaceIndex:
    index = WorkspaceIndex(project, tmp_path / "i.db")
    await index.build()
    return index


async def test_file_results_are_distinct_with_their_best_chunks(project: Path, tmp_path: Path) -> None:
    index = await built(project, tmp_path)
    try:
        files = await index.search_files("reconcile the ledger balance", 10)
        paths = [f.path for f in files]
        assert len(paths) == len(set(paths)) > 3
        assert [f.score for f in files] == sorted((f.score for f in files), reverse=True)
        busy = next(f for f in files if f.path == "pkg/busy.py")
        assert 1 <= len(busy.chunks) <= 3  # its best chunks, not all twelve
        assert all(c.path == "pkg/busy.py" and 1 <= c.start_line <= c.end_line for c in busy.chunks)
        assert busy.chunks[0].score >= busy.chunks[-1].score
    finally:
        index.close()


async def test_one_file_cannot_fill_the_chunk_list(project: Path, tmp_path: Path) -> None:
    index = await built(project, tmp_path)
    try:
        hits = await index.search("reconcile the ledger balance step", 8)
        per_file: dict[str, int] = {}
        for h in hits:
            per_file[h.path] = per_file.get(h.path, 0) + 1
        assert per_file.get("pkg/busy.py", 0) <= 3
        assert len(per_file) >= 4
        # with few other candidates the list is still filled, from the busy file
        only = await index.search("ledger_step", 10, "pkg/busy.py")
        assert len(only) == 10
    finally:
        index.close()


async def test_chunk_results_name_files_in_the_file_rankings_order(project: Path, tmp_path: Path) -> None:
    index = await built(project, tmp_path)
    try:
        query = "reconcile the ledger balance"
        files = [f.path for f in await index.search_files(query, 30)]
        hits = await index.search(query, 6)
        # Six chunks, six files: each candidate file's best chunk, in the order the file ranking gives.
        assert [h.path for h in hits] == files[:6]
        many = await index.search(query, len(files) + 4)
        assert [h.path for h in many[: len(files)]] == files
        second = [h.path for h in many[len(files) :]]  # then second-best chunks, again in file order
        assert "pkg/busy.py" in second and len(second) == len(set(second))
        assert second == [p for p in files if p in second]
    finally:
        index.close()


async def test_the_file_defining_a_name_ranks_above_files_that_only_use_it(project: Path, tmp_path: Path) -> None:
    index = await built(project, tmp_path)
    try:
        files = await index.search_files("reconcile_ledger returns the wrong balance for some ledgers", 10)
        paths = [f.path for f in files]
        assert paths[0] == "pkg/reconcile.py"
        for user in ("pkg/reports.py", "pkg/exports.py", "pkg/audit.py"):
            if user in paths:
                assert paths.index(user) > 0
    finally:
        index.close()


async def test_implementation_ranks_above_its_test_and_example_unless_tests_are_asked(
    project: Path, tmp_path: Path
) -> None:
    index = await built(project, tmp_path)
    try:
        paths = [f.path for f in await index.search_files("reconcile_ledger ledger balance", 10)]
        assert paths.index("pkg/reconcile.py") < paths.index("tests/test_reconcile.py")
        assert paths.index("pkg/reconcile.py") < paths.index("examples/ledger_demo.py")
        asked = [f.path for f in await index.search_files("tests/test_reconcile.py balance test", 5)]
        assert asked[0] == "tests/test_reconcile.py"
    finally:
        index.close()


async def test_an_error_message_finds_the_code_that_raises_it(project: Path, tmp_path: Path) -> None:
    index = await built(project, tmp_path)
    try:
        report = (
            'Closing books crashes\n\nTraceback (most recent call last):\n  File "/home/me/app.py", line 3\n'
            "ValueError: cannot reconcile a closed ledger account\n"
        )
        files = await index.search_files(report, 5)
        assert files[0].path == "pkg/reconcile.py"
        assert any(c.start_line <= 3 <= c.end_line for c in files[0].chunks)
    finally:
        index.close()


def test_entities_from_a_request() -> None:
    text = (
        "`Session.mount()` ignores adapters\n"
        "Calling `requests.Session().mount(prefix, adapter)` then get() raises\n"
        "    raise InvalidSchema(\"No connection adapters were found for '%s'\" % url)\n"
        "requests.exceptions.InvalidSchema: No connection adapters were found for 'foo://x'\n"
        "and sometimes a TimeoutError too."
    )
    e = extract_entities(parse_query(text))
    assert "Session.mount()" in e.code_spans
    assert {"InvalidSchema", "TimeoutError"} <= set(e.error_types)
    assert e.messages == ["No connection adapters were found for"]
    assert e.phrase_queries() == ['"no connection adapters were found for"']
    assert {"Session", "mount", "InvalidSchema"} <= set(e.strong_names)
    # untrusted text cannot smuggle FTS5 syntax into a phrase
    hostile = extract_entities(parse_query('KeyError: x" OR body:* NEAR( "a b c d e'))
    assert all(q.count('"') == 2 for q in hostile.phrase_queries())
    assert is_example_path("docs/en/example/conftest.py") and not is_example_path("src/example.py")


def test_cli_search_files_json(project: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    run = [sys.executable, "-m", "agent_server.index.cli"]
    done = subprocess.run([*run, "index", str(project), "--db", db], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = subprocess.run(
        [*run, "search", "--files", "--json", "--limit", "4", "--db", db, "reconcile_ledger closed ledger"],
        cwd=project, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    files = json.loads(out.stdout)
    assert 0 < len(files) <= 4
    assert files[0]["path"] == "pkg/reconcile.py"
    assert len({f["path"] for f in files}) == len(files)
    chunk = files[0]["chunks"][0]
    assert {"start_line", "end_line", "score", "symbol", "snippet"} <= set(chunk)
    text = subprocess.run(
        [*run, "search", "--files", "--db", db, "reconcile_ledger"], cwd=project, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert text.returncode == 0 and text.stdout.splitlines()[0].startswith("pkg/reconcile.py")


async def test_codebase_search_lists_files_with_line_ranges(project: Path, tmp_path: Path) -> None:
    from typing import Any, cast

    from agent_server.tools.base import ToolContext
    from agent_server.tools.codebase import CodebaseSearch

    codebase_search = CodebaseSearch().tool().handler

    index = await built(project, tmp_path)
    try:
        ctx = ToolContext(session_id="s1", roots=[project], client=cast(Any, None), services={"index": index})
        result = await codebase_search(ctx, {"query": "reconcile_ledger closed ledger", "files": True, "limit": 3})
        entries = result.text.split("\n\n")
        assert len(entries) <= 3 and entries[0].startswith("1. pkg/reconcile.py (score ")
        assert ": 1-" in entries[0].splitlines()[0] and "reconcile_ledger" in entries[0].splitlines()[0]
        assert "1\tdef reconcile_ledger(ledger):" in entries[0]
        assert result.locations and result.locations[0].path == str(project / "pkg" / "reconcile.py")
    finally:
        index.close()


def test_agent_server_search_entry_point_builds_then_answers_from_the_index(project: Path, tmp_path: Path) -> None:
    db = tmp_path / "entry.db"
    run = [sys.executable, "-m", "agent_server.launch", "search", "--files", "--json", "--db", str(db)]
    first = subprocess.run([*run, "reconcile_ledger"], cwd=project, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert db.is_file() and json.loads(first.stdout)[0]["path"] == "pkg/reconcile.py"  # no index yet: built first
    again = subprocess.run([*run, "cannot reconcile a closed ledger"], cwd=project, capture_output=True, text=True,
                           timeout=60)  # fmt: skip
    assert again.returncode == 0 and json.loads(again.stdout)[0]["path"] == "pkg/reconcile.py"
    # A whole bug report (issue 23: 24,770 characters were refused): searched by its distinctive part, and said so.
    report = (
        "The nightly job broke after the upgrade. Environment below.\n\n"
        + "\n".join(f"somepackage-{i}   1.{i}.0" for i in range(900))
        + "\n\n"
        + "\n".join(f"We tried many things on day {i} and none of them helped at all, sadly." for i in range(200))
        + '\nTraceback (most recent call last):\n  File "pkg/reconcile.py", line 2, in reconcile_ledger\n'
        + "ValueError: cannot reconcile a closed ledger\n"
    )
    assert len(report) > 24_000
    long = subprocess.run([*run[:-4], "--files", "--json", "--db", str(db), "-"], cwd=project, input=report,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert long.returncode == 0, long.stderr
    assert json.loads(long.stdout)[0]["path"] == "pkg/reconcile.py"
    assert f"the query has {len(report)} characters" in long.stderr and "kept" in long.stderr
    huge = subprocess.run([*run[:-4], "--db", str(db), "-"], cwd=project, input="x" * 2_000_001, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert huge.returncode == 2 and "limit is 2000000" in huge.stderr and not huge.stdout
    other = subprocess.run([sys.executable, "-m", "agent_server.launch", "--help"], capture_output=True, text=True,
                           timeout=60)  # fmt: skip
    assert other.returncode == 0 and "sessions" in other.stdout  # everything else is the full CLI


async def test_the_saved_symbol_graph_matches_a_fresh_one_and_is_dropped_after_an_edit(
    project: Path, tmp_path: Path
) -> None:
    from agent_server.index.graph import SymbolGraph

    index = await built(project, tmp_path)
    try:
        fresh = SymbolGraph.load(index.db)
        assert len(fresh.src) > 0  # the users of reconcile_ledger point at its definer
        saved = SymbolGraph.load_cached(index.db)  # saved now (or by the search context already)
        again = SymbolGraph.load_cached(index.db)
        for g in (saved, again):
            assert g.file_ids == fresh.file_ids
            assert sorted(zip(g.src.tolist(), g.dst.tolist(), strict=True)) == sorted(
                zip(fresh.src.tolist(), fresh.dst.tolist(), strict=True)
            )
        assert again.pagerank({fresh.file_ids[0]: 1.0}) == fresh.pagerank({fresh.file_ids[0]: 1.0})
        stamp = index.db.files_stamp()
        await index.update_file(project / "pkg" / "audit.py", "def unrelated():\n    return 1\n")
        assert index.db.files_stamp() != stamp
        assert index.db.graph_blob(index.db.files_stamp()) is None  # the saved graph is stale: not used
        rebuilt = SymbolGraph.load_cached(index.db)
        assert len(rebuilt.src) == len(SymbolGraph.load(index.db).src) < len(fresh.src)
    finally:
        index.close()


async def test_codebase_search_leaves_out_files_the_read_deny_rules_cover(project: Path, tmp_path: Path) -> None:
    from typing import Any, cast

    from agent_server.tools.base import ToolContext
    from agent_server.tools.codebase import CodebaseSearch

    codebase_search = CodebaseSearch().tool().handler

    index = await built(project, tmp_path)
    try:
        hidden = {"pkg/reconcile.py"}
        ctx = ToolContext(session_id="s1", roots=[project], client=cast(Any, None), services={"index": index},
                          hidden=lambda rel: rel in hidden)  # fmt: skip
        for files in (True, False):
            result = await codebase_search(ctx, {"query": "reconcile_ledger closed ledger", "files": files})
            assert "pkg/reconcile.py" not in result.text and "if ledger.closed" not in result.text
    finally:
        index.close()
