"""Embeddings fused with the lexical ranking by reciprocal rank, on real indexes, embedded through the real providers
(Ollama `/api/embed`, OpenAI `/v1/embeddings`) over loopback HTTP to the fake LLM server. The fake's vectors are a
bag of hashed words with a few synonyms, so "login" is near `authenticate_user` the way a real model would put it,
while no lexical signal can connect them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path

import pytest

from agent_server.config import IndexConfig
from agent_server.index import WorkspaceIndex
from agent_server.index.embeddings import ProviderEmbedder
from agent_server.index.fusion import fused_order, rrf
from agent_server.index.service import IndexService
from agent_server.llm.base import Provider
from agent_server.llm.ollama import OllamaProvider
from agent_server.llm.openai_compat import OpenAIProvider
from agent_server.tools.base import Services
from tests.fakes.fake_llm import FakeLLMServer, bag_of_words_embedding

SYNONYMS = {
    "login": "authenticate",
    "logins": "authenticate",
    "signin": "authenticate",
    "member": "user",
    "members": "user",
    "customer": "user",
}
VECTORS_ONLY = "where is the login of a member validated before an invoice gets paid"


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def project(workspace: Path) -> Path:
    write(
        workspace,
        "auth/session.py",
        "def authenticate_user(user, password):\n"
        '    """The user authenticates with a password; compare it to the stored digest."""\n'
        "    return verify_digest(user.password_digest, password)\n",
    )
    write(
        workspace,
        "billing/invoice.py",
        "def pay_invoice(invoice):\n    # an invoice gets paid once its total is settled\n"
        "    invoice.paid = True\n    return invoice.total\n",
    )
    write(
        workspace,
        "config/loader.py",
        "def parse_config_file(path):\n    with open(path) as fh:\n        return parse_settings(fh.read())\n\n\n"
        "def parse_settings(text):\n    return dict(line.split('=', 1) for line in text.splitlines() if '=' in line)\n",
    )
    # Prose that repeats the request's words: near in vector space, demoted as docs by the lexical ranking.
    write(
        workspace,
        "docs/troubleshooting.md",
        "# When the settings file is missing\n\nIf the settings file is missing, parsing the config fails: the file "
        "is missing, so the settings are missing and the config file parse raises.\n",
    )
    for i, topic in enumerate(("colour palette", "font sizes", "window layout", "keyboard shortcuts", "sound volume")):
        write(
            workspace, f"ui/panel{i}.py", f"def render_panel_{i}(screen):\n    # draws the {topic}\n    return screen\n"
        )
    return workspace


@pytest.fixture(params=["ollama", "openai"])
async def provider(request: pytest.FixtureRequest, fake_llm: FakeLLMServer) -> AsyncIterator[Provider]:
    fake_llm.embedding_fn = partial(bag_of_words_embedding, dim=256, synonyms=SYNONYMS)
    p: Provider = OllamaProvider(fake_llm.url) if request.param == "ollama" else OpenAIProvider(fake_llm.url)
    yield p
    await p.aclose()


@pytest.fixture
async def index(project: Path, tmp_path: Path, provider: Provider) -> AsyncIterator[WorkspaceIndex]:
    idx = WorkspaceIndex(project, tmp_path / "index.db", embedder=ProviderEmbedder(provider, "embed-model"))
    await idx.build()
    assert await idx.embed_pending() == idx.status().chunks > 0
    yield idx
    idx.close()


async def lexical_files(index: WorkspaceIndex, query: str) -> list[tuple[str, float]]:
    """What search returns with embeddings switched off (the same index, no embedder)."""
    embedder, index.embedder = index.embedder, None
    try:
        index._ctx = None  # the switch is a new configuration: caches are loaded again, as in a new process
        return [(f.path, f.score) for f in await index.search_files(query, 10)]
    finally:
        index.embedder = embedder
        index._ctx = None


def paths(files: list[tuple[str, float]]) -> list[str]:
    return [p for p, _ in files]


def test_rrf_rewards_agreement_over_one_first_place() -> None:
    lexical = ["a", "b", "c", "d"]
    vectors = ["d", "b", "e"]
    scores = rrf([lexical, vectors])
    assert max(scores, key=lambda k: scores[k]) == "b"  # second in both beats first in one
    assert scores["e"] == pytest.approx(1 / 63)  # only the vectors list it, third
    assert [x for x, _ in fused_order([lexical, vectors])][:2] == ["b", "d"]


def test_rrf_weights_and_k() -> None:
    assert [x for x, _ in fused_order([["a", "b"], ["b", "a"]], [2.0, 1.0])] == ["a", "b"]
    assert [x for x, _ in fused_order([["a", "b"], ["b", "a"]], [1.0, 2.0])] == ["b", "a"]
    # ties keep the first ranking's order; a duplicate counts at its first place only
    assert [x for x, _ in fused_order([["a", "b"], ["b", "a"]])] == ["a", "b"]
    assert rrf([["a", "a"]], k=1) == {"a": 0.5}
    with pytest.raises(ValueError, match="2 weights for 1 rankings"):
        rrf([["a"]], [1.0, 1.0])


async def test_vectors_surface_a_file_no_word_of_the_request_names(index: WorkspaceIndex) -> None:
    lexical = paths(await lexical_files(index, VECTORS_ONLY))
    assert "auth/session.py" not in lexical[:5]  # nothing lexical connects "login of a member" to it
    assert lexical[0] == "billing/invoice.py"

    fused = [f.path for f in await index.search_files(VECTORS_ONLY, 10)]
    assert "auth/session.py" in fused[:3]
    assert "billing/invoice.py" in fused[:3]  # what the words found is kept
    chunks = await index.search(VECTORS_ONLY, 5)
    session = next(h for h in chunks if h.path == "auth/session.py")
    assert session.symbol == "authenticate_user" and "verify_digest" in session.snippet


async def test_a_lexically_obvious_file_stays_on_top(index: WorkspaceIndex) -> None:
    query = "parse_config_file raises when the settings file is missing"
    lexical = paths(await lexical_files(index, query))
    assert lexical[0] == "config/loader.py"
    fused = await index.search_files(query, 10)
    assert fused[0].path == "config/loader.py"
    assert fused[0].chunks[0].symbol == "parse_config_file"


async def test_embeddings_off_leaves_results_exactly_as_a_never_embedded_index(
    index: WorkspaceIndex, project: Path, tmp_path: Path
) -> None:
    plain = WorkspaceIndex(project, tmp_path / "plain.db")
    await plain.build()
    try:
        for query in (VECTORS_ONLY, "parse_config_file raises when the settings file is missing", "render panel"):
            expected = [(f.path, f.score) for f in await plain.search_files(query, 10)]
            # the vectors are still stored in `index`, but no embedder is configured
            assert await lexical_files(index, query) == expected
            off_chunks = WorkspaceIndex(project, tmp_path / "index.db")  # the same database, a new process
            try:
                assert off_chunks.status().embeddings > 0
                got = [(h.path, h.start_line, h.score) for h in await off_chunks.search(query, 10)]
                assert got == [(h.path, h.start_line, h.score) for h in await plain.search(query, 10)]
            finally:
                off_chunks.close()
    finally:
        plain.close()


async def test_dead_embedding_server_falls_back_to_lexical(
    index: WorkspaceIndex, fake_llm: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    expected = await lexical_files(index, VECTORS_ONLY)
    await index.search_files(VECTORS_ONLY, 10)  # vectors loaded while the server was up
    fake_llm.stop()
    with caplog.at_level(logging.WARNING, logger="agent_server.index.embeddings"):
        got = [(f.path, f.score) for f in await index.search_files(VECTORS_ONLY, 10)]
        assert got == expected
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1 and "ranking without vectors" in warnings[0]
        assert VECTORS_ONLY not in warnings[0]  # the request itself is not logged
        # later searches do not wait for the dead server again (one warning, same lexical answer)
        assert (await index.search(VECTORS_ONLY, 5))[0].path == expected[0][0]
        assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1


async def test_query_vector_of_another_dimension_falls_back_to_lexical(
    index: WorkspaceIndex, fake_llm: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    expected = await lexical_files(index, VECTORS_ONLY)
    # The model behind the same name now answers 32 dimensions; the stored chunk vectors have 64.
    fake_llm.embedding_fn = partial(bag_of_words_embedding, dim=32, synonyms=SYNONYMS)
    with caplog.at_level(logging.WARNING, logger="agent_server.index.embeddings"):
        got = [(f.path, f.score) for f in await index.search_files(VECTORS_ONLY, 10)]
    assert got == expected
    assert any(
        "32-dimension query vector" in r.getMessage() and "256-dimension" in r.getMessage() for r in caplog.records
    )


async def test_background_embedding_against_a_dead_server_logs_and_search_stays_lexical(
    project: Path, fake_llm: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    dead = fake_llm.url
    fake_llm.stop()
    service = IndexService(project, IndexConfig(watch=False), Services())
    provider = OllamaProvider(dead, connect_timeout_s=1.0)
    try:
        await service.index.build()
        idle = asyncio.Event()
        idle.set()  # no chat turn is running
        with caplog.at_level(logging.WARNING, logger="agent_server.index.service"):
            service.start_embedding(ProviderEmbedder(provider, "embed-model"), idle)
            assert await asyncio.wait_for(service.embedding_done(), 30) == 0
        assert any("embedding chunks with embed-model stopped" in r.getMessage() for r in caplog.records)
        assert service.status()["embeddings"] == 0
        hits = await service.search("pay_invoice", 5, None)
        assert hits[0]["path"] == "billing/invoice.py"
    finally:
        await provider.aclose()
        await service.aclose()


async def test_chunks_longer_than_the_embedding_model_takes_are_cut_not_lost(
    project: Path, tmp_path: Path, provider: Provider, fake_llm: FakeLLMServer
) -> None:
    # A 512-token model behind llama-server refuses a long chunk with HTTP 500 instead of truncating it.
    body = "".join(f"    member_record_{i} = authenticate_user(user, password)\n" for i in range(60))
    write(project, "auth/audit.py", "def audit_logins(user, password):\n" + body)
    fake_llm.embedding_max_chars = 1200
    embedder = ProviderEmbedder(provider, "embed-model")
    index = WorkspaceIndex(project, tmp_path / "index.db", embedder=embedder)
    try:
        await index.build()
        assert await index.embed_pending() == index.status().chunks
        assert index.status().embeddings == index.status().chunks
        assert embedder.max_chars <= 1200
        fused = [f.path for f in await index.search_files("login of a member", 5)]
        assert {"auth/audit.py", "auth/session.py"} <= set(fused[:3])
        # a folder filter applies to what the vectors find too
        assert {f.path for f in await index.search_files("login of a member", 5, "auth/")} <= {
            "auth/audit.py",
            "auth/session.py",
        }
    finally:
        index.close()


async def test_vectors_keep_tests_below_the_implementation_like_the_lexical_ranking(
    project: Path, tmp_path: Path, provider: Provider
) -> None:
    # A test that is nearer the request than the code it tests (it says little else), and shares no word with it.
    write(project, "tests/test_signin.py", "def test_signin_customer(customer):\n    signin(customer)\n")
    index = WorkspaceIndex(project, tmp_path / "index.db", embedder=ProviderEmbedder(provider, "embed-model"))
    try:
        await index.build()
        await index.embed_pending()
        fused = [f.path for f in await index.search_files(VECTORS_ONLY, 10)]
        assert "tests/test_signin.py" not in paths(await lexical_files(index, VECTORS_ONLY))
        assert fused.index("auth/session.py") < fused.index("tests/test_signin.py")
    finally:
        index.close()
