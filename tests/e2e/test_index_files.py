"""`agent/_index/search` with `files: true` through the real server: distinct files with their best chunks."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_index_server import index_and_wait, make_project
from tests.lsp_client import LspClient


async def test_search_files_param_returns_distinct_files(server: LspClient, workspace: Path) -> None:
    make_project(workspace)
    (workspace / "pkg" / "invoices.py").write_text(
        "".join(f"def invoice_total_part_{i}(lines):\n    return compute_invoice_total(lines)\n\n" for i in range(9))
    )
    await index_and_wait(server)
    reply = await server.request("agent/_index/search", {"query": "compute_invoice_total", "files": True, "limit": 5})
    files = reply["files"]
    paths = [f["path"] for f in files]
    assert paths[0] == "pkg/billing.py"  # defines it; invoices.py only calls it (nine times)
    assert "pkg/invoices.py" in paths and len(paths) == len(set(paths)) <= 5
    assert all(not p.startswith("secret/") for p in paths)
    chunk = files[0]["chunks"][0]
    assert chunk["startLine"] == 1 and chunk["endLine"] >= 2 and "compute_invoice_total" in chunk["snippet"]
    assert 1 <= len(next(f for f in files if f["path"] == "pkg/invoices.py")["chunks"]) <= 3
    plain = await server.request("agent/_index/search", {"query": "compute_invoice_total", "limit": 8})
    top = [r["path"] for r in plain["results"]]
    # diversified: every matching file before a fourth chunk of the busy one (which then fills the list)
    assert top.index("pkg/billing.py") < 4 and top[:4].count("pkg/invoices.py") <= 3 and len(top) == 8
