"""Paged tool results: in a small window a tool returns a page that fits, and says how to get the rest."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_server.tools.base import PAGE_CHARS, Tool, ToolContext, ToolResult
from agent_server.tools.registry import ToolRegistry
from agent_server.tools.spill import SpillStore, spill_page
from tests.tools.builtin_registry import default_registry
from tests.tools.conftest import RecordingClient


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def make_ctx(root: Path, page: int | None) -> ToolContext:
    token = PAGE_CHARS.set(page)
    try:
        return ToolContext(session_id="s1", roots=[root], client=RecordingClient())
    finally:
        PAGE_CHARS.reset(token)


async def test_the_context_variable_reaches_every_tool_context(root: Path) -> None:
    assert make_ctx(root, 1234).page_chars == 1234
    assert make_ctx(root, None).page_chars is None


async def test_read_file_pages_cover_the_whole_file(root: Path) -> None:
    lines = [f"line {n}: " + "word " * (n % 13) for n in range(1, 901)]
    (root / "big.txt").write_text("\n".join(lines) + "\n")
    registry = default_registry()
    ctx = make_ctx(root, 2000)
    seen: list[str] = []
    start = 1
    for _ in range(200):
        result = await registry.execute(ctx, "read_file", {"path": "big.txt", "start_line": start})
        assert len(result.text) <= 2000, len(result.text)
        body = result.text.splitlines()
        assert body[0].startswith("big.txt (lines ") and body[0].endswith(" of 900)")
        seen += [ln.split("\t", 1)[1] for ln in body[1:] if "\t" in ln]
        marker = re.search(r"call read_file with start_line=(\d+) for more", result.text)
        if marker is None:
            break
        start = int(marker.group(1))
    assert seen == lines  # nothing lost, nothing repeated
    # Without a window budget the registry's result limit is the page: still a page, never a cut in the middle.
    unbudgeted = await default_registry().execute(make_ctx(root, None), "read_file", {"path": "big.txt"})
    assert 4000 < len(unbudgeted.text) <= 6000 and "characters cut" not in unbudgeted.text
    assert "call read_file with start_line=" in unbudgeted.text


async def test_a_small_file_comes_back_whole(root: Path) -> None:
    (root / "small.py").write_text("def f():\n    return 1\n")
    result = await default_registry().execute(make_ctx(root, 2000), "read_file", {"path": "small.py"})
    assert result.text == "small.py (lines 1-2 of 2)\n1\tdef f():\n2\t    return 1"


async def test_search_text_pages_with_skip(root: Path) -> None:
    for i in range(30):
        (root / f"m{i:02d}.py").write_text("".join(f"value_{i}_{n} = compute({n})  # needle\n" for n in range(10)))
    registry = default_registry()
    ctx = make_ctx(root, 1500)
    hits: list[str] = []
    skip = 0
    for _ in range(100):
        result = await registry.execute(ctx, "search_text", {"pattern": "needle", "skip": skip})
        assert len(result.text) <= 1500
        assert result.text.startswith("300 matches in 30 files")
        hits += [ln for ln in result.text.splitlines() if ": value_" in ln]
        marker = re.search(r"call search_text again with skip=(\d+)", result.text)
        if marker is None:
            break
        skip = int(marker.group(1))
    assert len(hits) == 300 and len(set(hits)) == 300


async def test_run_command_output_fits_the_page_and_says_how_to_narrow(root: Path) -> None:
    result = await default_registry().execute(make_ctx(root, 1200), "run_command", {"command": "seq 1 50000"})
    assert len(result.text) <= 1200
    assert result.text.splitlines()[-1] == "50000"  # the tail (where errors are) is kept
    assert "| grep" in result.text and "tail -n" in result.text


def test_spill_page_keeps_the_rest_for_read_output() -> None:
    text = "\n".join(f"row {n}" for n in range(1, 5001))
    assert spill_page("s1", "x result", "short", 1000) == "short"
    page = spill_page("s1", "x result", text, 1000)
    assert len(page) <= 1000 and page.startswith("row 1\n")
    assert re.search(r"call read_output with id='out-\d+' and start_line=\d+ for more", page)


def test_spill_store_is_bounded_and_per_session() -> None:
    store = SpillStore(max_entries=2, max_chars=100)
    a = store.put("s1", "a" * 40)
    b = store.put("s1", "b" * 40)
    assert store.get("s2", a) is None  # another session cannot read it
    c = store.put("s1", "c" * 40)
    assert store.get("s1", a) is None and store.get("s1", b) == "b" * 40 and store.get("s1", c) == "c" * 40


async def test_mcp_results_are_paged_and_read_output_returns_the_rest(root: Path) -> None:
    report = "\n".join(f"report line {n}: nominal" for n in range(1, 4001))

    async def handler(ctx: ToolContext, args: dict[str, object]) -> ToolResult:
        return ToolResult(text=report)

    registry = ToolRegistry()
    assert "read_output" not in registry
    registry.register(Tool("srv__report", "r", {"type": "object"}, handler, source="srv"))
    assert "read_output" in registry  # offered only once an MCP tool is there
    ctx = make_ctx(root, 1500)
    first = await registry.execute(ctx, "srv__report", {})
    assert len(first.text) <= 1500 and first.text.startswith("report line 1: nominal")
    got = [ln for ln in first.text.splitlines() if ln.startswith("report line")]
    for _ in range(200):
        marker = re.search(r"id='(out-\d+)' and start_line=(\d+)", first.text)
        if marker is None:
            break
        first = await registry.execute(ctx, "read_output", {"id": marker[1], "start_line": int(marker[2])})
        assert len(first.text) <= 1500
        got += [ln for ln in first.text.splitlines() if ln.startswith("report line")]
    assert got == report.splitlines()
    other = await registry.execute(make_ctx(root, 1500), "read_output", {"id": "out-999999"})
    assert other.is_error and "no kept output" in other.text
