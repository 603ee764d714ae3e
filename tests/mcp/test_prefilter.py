"""The tool pre-filter: BM25 picks the right tools from a 60-tool registry; kept tools always survive."""

from __future__ import annotations

import json
import math

import pytest

from agent_server.llm.base import ToolSpec
from agent_server.tools.prefilter import ToolPrefilter, bm25_scores, measure_tool_tokens, tokenize

from .tool_catalog import CATALOG, REQUESTS

LOOP_TOOLS = [
    ToolSpec("task_completion", "Finish the task with a summary.", {"type": "object", "properties": {}}),
    ToolSpec("ask_question", "Ask the user a question.", {"type": "object", "properties": {}}),
    ToolSpec("update_plan", "Update the plan.", {"type": "object", "properties": {}}),
]


def test_catalog_is_sixty_distinct_tools() -> None:
    assert len(CATALOG) == 60
    assert len({t.name for t in CATALOG}) == 60
    assert all(expected in {t.name for t in CATALOG} for _, expected in REQUESTS)


def test_tokenize_splits_identifiers_and_expands_abbreviations() -> None:
    assert tokenize("github__createPullRequest") == ["github", "create", "pull", "request"]
    assert tokenize("k8s.get_pods") == tokenize("Kubernetes pod")
    assert tokenize("Open a PR") == ["open", "pull", "request"]
    assert tokenize("list commits") == tokenize("list_commit")
    assert tokenize("HTTPServer commits") == ["http", "server", "commit"]


async def test_bm25_puts_the_expected_tool_in_the_top_k() -> None:
    prefilter = ToolPrefilter(15)
    ranks: list[int] = []
    for request, expected in REQUESTS:
        ranked = [t.name for t, _ in await prefilter.rank(request, CATALOG)]
        ranks.append(ranked.index(expected) + 1)
        chosen = {t.name for t in await prefilter.select(request, CATALOG)}
        assert expected in chosen, f"{expected!r} not offered for {request!r} (rank {ranks[-1]}): {ranked[:15]}"
    top1 = sum(r == 1 for r in ranks)
    top3 = sum(r <= 3 for r in ranks)
    print(
        f"\nBM25 pre-filter over {len(CATALOG)} tools, {len(REQUESTS)} requests: "
        f"top-1 {top1}/{len(ranks)}, top-3 {top3}/{len(ranks)}, top-15 {len(ranks)}/{len(ranks)}; ranks {ranks}"
    )
    assert all(r <= 15 for r in ranks)
    assert top3 >= math.ceil(0.75 * len(ranks))


async def test_select_keeps_loop_tools_and_original_order() -> None:
    tools = [*CATALOG[:30], *LOOP_TOOLS, *CATALOG[30:]]
    prefilter = ToolPrefilter(15, always_keep={"task_completion", "ask_question", "update_plan"})
    chosen = await prefilter.select("show the pod logs in kubernetes", tools)
    names = [t.name for t in chosen]
    assert len(chosen) == 15
    assert {"task_completion", "ask_question", "update_plan", "k8s__pod_logs"} <= set(names)
    assert names == [t.name for t in tools if t.name in names]  # original order, for prompt caching


async def test_small_tool_sets_pass_through_untouched() -> None:
    prefilter = ToolPrefilter(15)
    assert await prefilter.select("anything", CATALOG[:15]) == CATALOG[:15]


async def test_embeddings_are_used_and_cached() -> None:
    """A toy embedder (bag of catalog words) stands in for a model; what matters is how it is called."""
    vocab = sorted({w for t in CATALOG for w in tokenize(t.name)})
    calls: list[int] = []

    async def embed(texts: list[str]) -> list[list[float]]:
        calls.append(len(texts))
        return [[float(w in tokenize(text)) for w in vocab] for text in texts]

    prefilter = ToolPrefilter(5, embed=embed)
    chosen = [t.name for t in await prefilter.select("restart the deployment rollout", CATALOG)]
    assert "k8s__rollout_restart" in chosen and len(chosen) == 5
    await prefilter.select("list docker containers", CATALOG)
    assert calls == [61, 1]  # tool vectors are embedded once, then only the request


async def test_failing_embeddings_fall_back_to_bm25() -> None:
    async def embed(texts: list[str]) -> list[list[float]]:
        raise ConnectionError("embedding server down")

    chosen = [t.name for t in await ToolPrefilter(5, embed=embed).select("scale the api deployment", CATALOG)]
    assert "k8s__scale_deployment" in chosen


def test_bm25_prefers_rare_matching_terms() -> None:
    scores = bm25_scores("blame", ["git blame a file", "git log", "git status"])
    assert scores[0] > 0 and scores[1] == scores[2] == 0


def test_measure_tool_tokens_tracks_the_wire_json() -> None:
    full = measure_tool_tokens(CATALOG)
    wire = json.dumps(
        [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in CATALOG
        ]
    )
    assert full == pytest.approx(len(wire) / 3.5, rel=0.01)
    assert measure_tool_tokens(CATALOG[:15]) < full / 3
    assert measure_tool_tokens([]) == 0
