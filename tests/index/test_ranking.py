"""Ranking behaviour a user notices: noise in bug reports, tests and docs versus source, long queries."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_server.index import Hit, IndexStats, IndexStatus, WorkspaceIndex


@pytest.fixture
def project(workspace: Path) -> Path:
    (workspace / "src").mkdir()
    (workspace / "src" / "skipping.py").write_text(
        'def evaluate_xfail_marks(item):\n    """Xfail marks added statically or dynamically; failures are ignored."""\n'
        "    for mark in item.iter_markers(name='xfail'):\n"
        "        return mark\n\ndef pytest_runtest_call(item):\n    xfailed = evaluate_xfail_marks(item)\n"
    )
    (workspace / "src" / "packaging.py").write_text(
        "KNOWN = ['aiohttp', 'appdirs', 'arrow', 'alabaster', 'apipkg', 'appnope', 'aioftp', 'asv']\n"
    )
    (workspace / "tests").mkdir()
    (workspace / "tests" / "test_skipping.py").write_text(
        "def test_dynamic_xfail_marker(testdir):\n    # dynamically added xfail marker in a test\n"
        "    testdir.makepyfile('xfail marker added dynamically')\n    xfail = 'xfail marker dynamically'\n"
    )
    (workspace / "CHANGELOG.rst").write_text(
        "Dynamically adding an xfail marker now works again; the xfail marker is honoured.\n" * 3
    )
    for i in range(30):
        (workspace / "src" / f"filler_{i}.py").write_text(f"def filler_{i}(item):\n    return item.name + 'plain'\n")
    return workspace


async def test_package_exports_the_facade(project: Path, tmp_path: Path) -> None:
    index = WorkspaceIndex(project, tmp_path / "i.db")
    stats = await index.build()
    assert isinstance(stats, IndexStats) and stats.files_processed == 34
    status = index.status()
    assert isinstance(status, IndexStatus) and status.files == 34
    hits = await index.search("evaluate_xfail_marks")
    assert isinstance(hits[0], Hit) and hits[0].path == "src/skipping.py"
    index.close()


async def test_source_beats_tests_and_changelog_when_a_report_just_says_test(project: Path, tmp_path: Path) -> None:
    index = WorkspaceIndex(project, tmp_path / "i.db")
    await index.build()
    report = "Dynamically adding xfail marker in test no longer ignores failure\nThe xfail marker is ignored."
    assert (await index.search(report))[0].path == "src/skipping.py"
    named = await index.search("dynamic xfail marker in tests/test_skipping.py")
    assert named[0].path == "tests/test_skipping.py"
    assert (await index.search("changelog entry about the xfail marker"))[0].path == "CHANGELOG.rst"
    index.close()


async def test_a_pasted_pip_list_does_not_drown_the_title(project: Path, tmp_path: Path) -> None:
    index = WorkspaceIndex(project, tmp_path / "i.db")
    await index.build()
    listing = "\n".join(f"{name:<20} {i}.{i + 1}.0" for i, name in enumerate(
        ["aiohttp", "appdirs", "arrow", "alabaster", "apipkg", "appnope", "aioftp", "asv"] * 5
    ))  # fmt: skip
    report = f"evaluate xfail marks broken for dynamic markers\n\n## Versions\n```\n{listing}\n```\n"
    assert (await index.search(report))[0].path == "src/skipping.py"
    index.close()


async def test_a_rare_identifier_wins_in_a_long_wordy_query(project: Path, tmp_path: Path) -> None:
    index = WorkspaceIndex(project, tmp_path / "i.db")
    await index.build()
    words = " ".join(f"word{i} plain item name" for i in range(40))
    hits = await index.search(f"{words} pytest_runtest_call")
    assert hits[0].path == "src/skipping.py"
    index.close()
