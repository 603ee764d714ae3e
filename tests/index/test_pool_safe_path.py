"""The index's worker processes never run a module from the workspace they were started in (the server's working
directory is the workspace; a spawned worker's `python -c` would put it first on sys.path)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_server.index import pool


def test_a_repository_module_named_like_the_standard_library_does_not_run_in_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if pool.usable_cpus() < 2:
        pytest.skip("one CPU: the index chunks in-process, there are no workers")
    marker = tmp_path / "RAN"
    hostile = tmp_path / "repo"
    hostile.mkdir()
    # imported by a spawned worker before it has taken the server's sys.path
    (hostile / "multiprocessing.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    monkeypatch.chdir(hostile)
    monkeypatch.delenv("PYTHONSAFEPATH", raising=False)
    pool.discard_pool(wait=True)
    try:
        workers = pool.shared_pool()
        assert workers is not None
        assert workers.submit(sorted, [3, 1, 2]).result(timeout=120) == [1, 2, 3]
    finally:
        pool.discard_pool(wait=True)
    assert not marker.exists()
    assert "PYTHONSAFEPATH" not in __import__("os").environ  # the user's commands never inherit it
