"""The extra context: the ring of recent chunks (stable order, replaced duplicates), names near the cursor, the
budget, and which model names fill in the middle in which tokens."""

from __future__ import annotations

from collections.abc import Sequence

from agent_server.completion.context import RecentChunks, gather, names_near
from agent_server.completion.templates import family_of, template_for
from agent_server.completion.types import Chunk, FimRequest


def lines(n: int, tag: str) -> str:
    return "\n".join(f"{tag}_{i} = compute({i})" for i in range(n))


def test_ring_keeps_insertion_order_drops_the_oldest_and_replaces_a_chunk_seen_again() -> None:
    ring = RecentChunks(capacity=3, chunk_lines=8)
    for tag in ("a", "b", "c"):
        ring.add(f"{tag}.py", lines(8, tag))
    ring.add("a.py", lines(8, "a").replace("a_7 = compute(7)", "a_7 = compute(70)"))  # the same place, edited
    assert [c.path for c in ring.chunks()] == ["b.py", "c.py", "a.py"]
    ring.add("d.py", lines(8, "d"))
    assert [c.path for c in ring.chunks()] == ["c.py", "a.py", "d.py"]
    ring.add("e.py", "x = 1\n\n")  # nearly empty: not worth a chunk
    assert len(ring) == 3


def test_ring_chunk_is_taken_around_the_line() -> None:
    ring = RecentChunks(capacity=4, chunk_lines=4)
    ring.add("m.py", lines(40, "m"), line=20)
    assert ring.chunks()[0].text.splitlines()[0] == "m_18 = compute(18)"


def test_names_near_the_cursor_nearest_first_without_keywords_or_local_definitions() -> None:
    prefix = (
        "def local_helper():\n    pass\n\nfor item in items:\n    total = price_of(item) + local_helper()\n    tax = "
    )
    assert names_near(prefix)[:4] == ["tax", "item", "price_of", "total"]  # nearest to the cursor first
    assert "local_helper" not in names_near(prefix) and "for" not in names_near(prefix)


class Defs:
    def __init__(self, found: list[Chunk]) -> None:
        self.found = found
        self.asked: list[str] = []

    async def definitions(self, names: Sequence[str], exclude_path: str, max_lines: int) -> list[Chunk]:
        self.asked = list(names)
        return self.found


async def test_gather_puts_the_ring_first_and_respects_the_budget() -> None:
    ring = RecentChunks(capacity=8, chunk_lines=8)
    ring.add("old.py", lines(8, "old"))
    ring.add("new.py", lines(8, "new"))
    defs = Defs([Chunk("lib.py", "def price_of(item):\n    return item.price\n")])
    got = await gather(ring, defs, "main.py", "x = price_of(", "x = price_of(", 10_000, 8)
    assert [c.path for c in got] == ["old.py", "new.py", "lib.py"] and defs.asked == ["price_of"]
    small = await gather(ring, defs, "main.py", "x = price_of(", "x = price_of(", 80, 8)
    assert [c.path for c in small] == ["new.py", "lib.py"]  # the newest chunks stay when the ring does not fit
    assert await gather(ring, defs, "main.py", "x", "x", 0, 8) == []


def test_model_names_pick_their_family_and_chat_models_none() -> None:
    assert family_of("qwen2.5-coder:1.5b-base") == "qwen" and family_of("Qwen2.5-Coder-0.5B-Instruct-GGUF") == "qwen"
    assert family_of("starcoder2:3b") == "starcoder" and family_of("codellama:7b-code") == "codellama"
    assert family_of("deepseek-coder-v2:16b") == "deepseek" and family_of("codestral:22b") == "codestral"
    assert family_of("qwen3:8b") is None and family_of("llama3.2:3b") is None
    assert template_for("server", "qwen2.5-coder") is None
    req = FimRequest(prefix="a = ", suffix="\nb = 2", path="m.py")
    codestral = template_for("codestral", "whatever")
    assert codestral is not None and codestral.render(req) == "[SUFFIX]\nb = 2[PREFIX]a = "
