"""Embeddings for real: a second llama-server, started with `--embeddings` (mean pooling) on the lane's SmolLM2 GGUF,
serves `/v1/embeddings`; a tiny workspace is indexed and embedded through `OpenAIProvider`, and search ranks by the
reciprocal-rank fusion of the lexical order and the nearest chunks. SmolLM2 is a chat model, not an embedding model:
what is asserted is what fusion guarantees whatever the vectors' quality, not that they are semantically good."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from agent_server.index import WorkspaceIndex
from agent_server.index.embeddings import ProviderEmbedder
from agent_server.llm.openai_compat import OpenAIProvider
from tests.real_llm.llama import LlamaServer, start_llama, stop_llama

FILES = {
    "billing/invoice.py": "def compute_invoice_total(lines):\n    return sum(line.amount for line in lines)\n",
    "billing/tax.py": "def vat_rate(country):\n    return {'de': 0.19, 'fr': 0.2}.get(country, 0.0)\n",
    "auth/session.py": "def authenticate_user(user, password):\n    return verify_digest(user.digest, password)\n",
    "ui/theme.py": "PALETTE = ['#000000', '#ffffff']\n\n\ndef apply_theme(window):\n    window.colours = PALETTE\n",
}


@pytest.fixture(scope="module")
def llama_embed(
    llama_binaries: tuple[Path | None, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LlamaServer]:
    """A second server for embeddings only (one batch holds a whole chunk: pooling needs the sequence in one pass)."""
    log = tmp_path_factory.mktemp("llama-embed") / "llama-server.log"
    server = start_llama(llama_binaries, log, 2048, "--embeddings", "--pooling", "mean", "-b", "2048", "-ub", "2048")
    yield server
    stop_llama(server)


@pytest.fixture
async def index(llama_embed: LlamaServer, tmp_path: Path) -> AsyncIterator[WorkspaceIndex]:
    root = tmp_path / "ws"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    provider = OpenAIProvider(llama_embed.url)
    idx = WorkspaceIndex(root, tmp_path / "index.db", embedder=ProviderEmbedder(provider, llama_embed.model))
    await idx.build()
    yield idx
    idx.close()
    await provider.aclose()


async def test_chunks_embedded_by_llama_server_extend_the_lexical_ranking(index: WorkspaceIndex) -> None:
    assert index.embedder is not None
    chunks = index.status().chunks
    assert await index.embed_pending() == chunks
    assert index.status().embeddings == chunks
    dim = len((await index.embedder.embed(["probe"]))[0])
    assert dim == 576  # SmolLM2-135M's hidden size: the vectors are the model's, not a placeholder

    query = "compute_invoice_total"
    embedder, index.embedder = index.embedder, None
    lexical = [f.path for f in await index.search_files(query, 10)]
    index.embedder, index._ctx = embedder, None  # embeddings on, caches reloaded with the vectors
    fused = await index.search_files(query, 10)
    assert lexical == ["billing/invoice.py"]  # only this file has the words
    # The file the words find stays first (no other file can beat first place lexical plus any vector rank), and
    # the nearest chunks bring in files no word matched.
    assert fused[0].path == "billing/invoice.py"
    assert fused[0].chunks[0].symbol == "compute_invoice_total"
    assert len(fused) > len(lexical) and set(lexical) <= {f.path for f in fused}
    hits = await index.search(query, 5)
    assert hits[0].path == "billing/invoice.py"
