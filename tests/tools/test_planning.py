from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_server import acp
from agent_server.tools.base import ToolContext
from agent_server.tools.codebase import NOT_BUILT
from tests.tools.builtin_registry import default_registry

registry = default_registry()


async def test_update_plan_returns_acp_entries(ctx: ToolContext) -> None:
    entries = [
        {"content": "Read the failing test", "status": "completed", "priority": "high"},
        {"content": "Fix the parser", "status": "in_progress"},
        {"content": "Run pytest"},
    ]
    result = await registry.execute(ctx, "update_plan", {"entries": entries})
    assert result.plan == [
        acp.PlanEntry(content="Read the failing test", status="completed", priority="high"),
        acp.PlanEntry(content="Fix the parser", status="in_progress"),
        acp.PlanEntry(content="Run pytest"),
    ]
    assert result.text.splitlines() == [
        "Plan updated (1/3 done):",
        "[x] Read the failing test",
        "[~] Fix the parser",
        "[ ] Run pytest",
    ]
    bad = await registry.execute(ctx, "update_plan", {"entries": [{"content": "x", "status": "done"}]})
    assert bad.is_error and "entries.0.status" in bad.text


async def test_ask_question_ends_the_turn_with_numbered_options(ctx: ToolContext) -> None:
    result = await registry.execute(ctx, "ask_question", {"question": "Which DB?", "options": ["SQLite", "Postgres"]})
    assert result.ends_turn
    assert result.text == "Which DB?\n1. SQLite\n2. Postgres"


async def test_task_completion_ends_the_turn(ctx: ToolContext) -> None:
    result = await registry.execute(ctx, "task_completion", {"summary": "Fixed the parser; tests pass."})
    assert result.ends_turn and "Fixed the parser; tests pass." in result.text


async def test_codebase_search_without_an_index_says_how_to_build_it(ctx: ToolContext) -> None:
    result = await registry.execute(ctx, "codebase_search", {"query": "where are sessions saved"})
    assert result.text == NOT_BUILT and not result.is_error
    assert "agent-server index" in result.text


@dataclass
class Hit:
    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str


class WordIndex:
    """A tiny real index: scores files by how many query words they contain."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.queries: list[tuple[str, int]] = []

    async def search(self, query: str, limit: int) -> list[Hit]:
        self.queries.append((query, limit))
        hits = []
        for file in sorted(self.root.rglob("*.py")):
            text = file.read_text()
            score = sum(word in text for word in query.split())
            if score:
                n = len(text.splitlines())
                hits.append(Hit(file.relative_to(self.root).as_posix(), 1, n, float(score), text))
        return sorted(hits, key=lambda h: -h.score)[:limit]


async def test_codebase_search_formats_hits(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "store.py").write_text("def save_session(db, session):\n    db.insert(session)\n")
    (workspace / "ui.py").write_text("def render(session):\n    pass\n")
    index = WordIndex(workspace)
    ctx.services["index"] = index
    result = await registry.execute(ctx, "codebase_search", {"query": "save_session insert", "limit": 3})
    assert index.queries == [("save_session insert", 3)]
    assert result.text.splitlines()[:3] == [
        "1. store.py:1-2 (score 2.00)",
        "1\tdef save_session(db, session):",
        "2\t    db.insert(session)",
    ]
    assert result.locations[0].path == str(workspace / "store.py")
    none = await registry.execute(ctx, "codebase_search", {"query": "zzz"})
    assert "No indexed code matches 'zzz'" in none.text
