"""The real_llm lane: llama.cpp with real small models: SmolLM2-135M-Instruct (Q4_1) for cheap checks and
Qwen2.5-Coder-0.5B-Instruct (Q4_K_M) for real tool turns.

`scripts/real_llm.sh` installs the prebuilt llama.cpp (xllamacpp) and fetches both models with the embedded
provider's downloader, once, into a cache outside the clone keyed by hash. Session fixtures start the embedded runner
(the embedded provider's child process) on loopback: SmolLM2 with a 2,048-token window, Qwen with 8,192, and stop
them at the end. Outside CI, when nothing is there yet and the lane was not asked for (`pytest -m real_llm`), the
tests skip with that reason; in CI (`CI=true`) a failure to provide them fails the lane.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import start_server
from tests.real_llm.llama import N_CTX, Binaries, LlamaServer, binaries_from, start_llama, stop_llama

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
def real_llm_out(request: pytest.FixtureRequest) -> str:
    """scripts/real_llm.sh's output (LLAMA_MODEL=, QWEN_MODEL=, LLAMA_SERVER= with the opt-in build)."""
    env = {**_ENV, "PYTHONUNBUFFERED": "1"}
    in_ci = env.get("CI", "").lower() in ("1", "true", "yes")
    if not in_ci and not _explicitly_asked(request.config):
        # Do not start downloads in a casual local run: reuse what is there, else say how to get it.
        probe = subprocess.run(
            ["bash", "scripts/real_llm.sh", "--check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=30
        )
        if probe.returncode != 0:
            pytest.skip(
                "the real_llm models are not fetched yet: run `bash scripts/real_llm.sh` or `pytest -m real_llm`"
            )
        return probe.stdout
    proc = subprocess.run(
        ["bash", "scripts/real_llm.sh"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600
    )
    if proc.returncode != 0:
        pytest.fail(f"scripts/real_llm.sh failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return proc.stdout


@pytest.fixture(scope="session")
def llama_binaries(real_llm_out: str) -> Binaries:
    """(llama-server or None for the embedded runner, SmolLM2 GGUF)."""
    found = binaries_from(real_llm_out)
    if found is None:
        pytest.fail(f"scripts/real_llm.sh gave no SmolLM2 model: {real_llm_out}")
    return found


@pytest.fixture(scope="session")
def llama(llama_binaries: Binaries, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """One SmolLM2 server for the whole lane: 2,048-token window, jinja, one slot, one thread."""
    server = start_llama(llama_binaries, tmp_path_factory.mktemp("llama") / "llama-server.log")
    yield server
    stop_llama(server)


QWEN_ALIAS = "qwen2.5-coder-0.5b-instruct"
QWEN_CTX = 8192


def _qwen(real_llm_out: str, factory: pytest.TempPathFactory, n_ctx: int) -> LlamaServer:
    found = binaries_from(real_llm_out, "QWEN_MODEL")
    if found is None:
        pytest.fail(f"scripts/real_llm.sh gave no Qwen model: {real_llm_out}")
    return start_llama(found, factory.mktemp("qwen") / "llama-server.log", n_ctx, alias=QWEN_ALIAS)


@pytest.fixture(scope="session")
def qwen(real_llm_out: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """Qwen2.5-Coder-0.5B for real tool turns: 8,192-token window, its own jinja template (renders tools)."""
    server = _qwen(real_llm_out, tmp_path_factory, QWEN_CTX)
    yield server
    stop_llama(server)


@pytest.fixture
def qwen_2k(real_llm_out: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """Qwen with a real 2,048-token window: a prompt over it is the server's own 400, counted by its tokenizer."""
    server = _qwen(real_llm_out, tmp_path_factory, 2048)
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
