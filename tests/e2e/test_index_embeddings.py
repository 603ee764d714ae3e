"""`index.embeddings` with `llm.embeddingModel` through the real server: after a build the chunks are embedded in the
background (through the fake LLM server's Ollama `/api/embed`), and `agent/_index/search` fuses the vectors with the
lexical ranking; a server without the setting, on the same index, ranks as before; a dead embedding server costs
nothing but the vectors."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

from tests.e2e.conftest import Start, llm_options
from tests.fakes.fake_llm import FakeLLMServer, bag_of_words_embedding
from tests.lsp_client import LspClient

SYNONYMS = {"login": "authenticate", "member": "user"}
QUERY = "where is the login of a member validated before an invoice gets paid"


def make_project(root: Path) -> None:
    files = {
        "auth/session.py": "def authenticate_user(user, password):\n    return verify_digest(user.digest, password)\n",
        "billing/invoice.py": "def pay_invoice(invoice):\n    # an invoice gets paid once settled\n    invoice.paid = True\n",
        **{f"ui/panel{i}.py": f"def render_panel_{i}(screen):\n    return screen\n" for i in range(5)},
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


async def index_and_embed(client: LspClient, embedded: bool) -> None:
    await client.request("agent/_index/start", {})  # False when a refresh of an earlier index already runs
    for _ in range(300):
        status = await client.request("agent/_index/status", {})
        if status["files"] and not status["building"] and (not embedded or status["embeddings"] == status["chunks"]):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"index not ready: {status}")


async def search_files(client: LspClient) -> list[str]:
    reply = await client.request("agent/_index/search", {"query": QUERY, "files": True, "limit": 5})
    return [f["path"] for f in reply["files"]]


async def test_embeddings_setting_fuses_vectors_into_search(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.embedding_fn = partial(bag_of_words_embedding, dim=256, synonyms=SYNONYMS)
    make_project(workspace)
    with_vectors = await start_server(
        workspace, {**llm_options(fake_llm, embeddingModel="embed-model"), "index": {"embeddings": True}}
    )
    await index_and_embed(with_vectors, embedded=True)
    assert any(r.path in ("/api/embed", "/v1/embeddings") for r in fake_llm.requests)
    fused = await search_files(with_vectors)
    assert fused[0] == "billing/invoice.py" and "auth/session.py" in fused[:3]

    # The embedding server goes away: search still answers, lexically.
    fake_llm.stop()
    assert await search_files(with_vectors) == ["billing/invoice.py"]
    await with_vectors.close()
    assert "ranking without vectors" in await with_vectors.stderr_text()


async def test_without_the_setting_stored_vectors_do_not_change_results(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.embedding_fn = partial(bag_of_words_embedding, dim=256, synonyms=SYNONYMS)
    make_project(workspace)
    first = await start_server(
        workspace, {**llm_options(fake_llm, embeddingModel="embed-model"), "index": {"embeddings": True}}
    )
    await index_and_embed(first, embedded=True)
    await first.close()
    # Same workspace, same index database (vectors stored), embeddings not configured.
    plain = await start_server(workspace, llm_options(fake_llm))
    await index_and_embed(plain, embedded=False)
    assert (await plain.request("agent/_index/status", {}))["embeddings"] > 0
    assert await search_files(plain) == ["billing/invoice.py"]
