"""Shared fixtures. Every test gets its own data dir so nothing touches the user's real store."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    home = tmp_path_factory.mktemp("home")
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(home / var.lower()))
    for name in list(os.environ):
        if name.startswith("AGENT_SERVER_"):
            monkeypatch.delenv(name)
    yield


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


from tests.fakes.fixtures import fake_llm  # noqa: E402,F401  (re-exported fixture)

# The scorecard's task data: exercises and workspaces whose tests fail until an agent solves them (the runner runs
# them in a throwaway copy), never part of the suite itself.
collect_ignore_glob = ["benchmarks/scorecard/exercises/*", "benchmarks/scorecard/workspaces/*"]
