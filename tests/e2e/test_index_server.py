"""The workspace index through the real server: progress, status, search, saves, codebase_search in a turn."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.e2e.conftest import new_session
from tests.fakes.fake_llm import Delay, FakeLLMServer, Reply, Text
from tests.lsp_client import LspClient


def make_project(root: Path, files: int = 30) -> None:
    (root / "pkg").mkdir()
    for i in range(files):
        (root / "pkg" / f"mod{i}.py").write_text(
            f"def helper_{i}(x):\n    return x * {i}\n\n\nclass Thing{i}:\n    pass\n"
        )
    (root / "pkg" / "billing.py").write_text(
        "def compute_invoice_total(lines):\n    return sum(l.amount for l in lines)\n"
    )
    (root / ".gitignore").write_text("secret/\n")
    (root / "secret").mkdir()
    (root / "secret" / "hidden.py").write_text("def compute_invoice_total_hidden():\n    pass\n")


def progress_values(client: LspClient) -> list[dict[str, object]]:
    return [p["value"] for _, m, p in client.notifications if m == "$/progress"]


async def index_and_wait(client: LspClient) -> None:
    assert (await client.request("agent/_index/start", {}))["started"] is True
    await client.wait_for(lambda: any(v["kind"] == "end" for v in progress_values(client)), timeout=60)


async def test_index_reports_progress_then_searches(server: LspClient, workspace: Path) -> None:
    make_project(workspace)
    await index_and_wait(server)
    kinds = [v["kind"] for v in progress_values(server)]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
    reports = [v for v in progress_values(server) if v["kind"] == "report"]
    assert all(" of " in str(v["message"]) for v in reports)
    assert [v["percentage"] for v in reports] == sorted(v["percentage"] for v in reports)  # type: ignore[type-var]
    assert any(m == "window/workDoneProgress/create" for m, _ in server.server_requests)

    status = await server.request("agent/_index/status", {})
    assert status["files"] == 32 and status["building"] is False
    results = (await server.request("agent/_index/search", {"query": "compute invoice total"}))["results"]
    assert results[0]["path"] == "pkg/billing.py"
    assert all(not r["path"].startswith("secret/") for r in results)


async def test_saved_file_is_searchable(server: LspClient, workspace: Path) -> None:
    make_project(workspace, files=3)
    await index_and_wait(server)
    target = workspace / "pkg" / "fresh.py"
    text = "def reconcile_ledger_entries(entries):\n    return entries\n"
    target.write_text(text)
    server.notify("textDocument/didSave", {"textDocument": {"uri": target.as_uri()}, "text": text})
    found: list[str] = []

    async def searchable() -> bool:
        res = (await server.request("agent/_index/search", {"query": "reconcile_ledger_entries"}))["results"]
        found[:] = [r["path"] for r in res]
        return "pkg/fresh.py" in found

    for _ in range(50):
        if await searchable():
            break
        await asyncio.sleep(0.1)
    assert "pkg/fresh.py" in found


async def test_codebase_search_tool_in_a_turn(server: LspClient, workspace: Path, fake_llm: FakeLLMServer) -> None:
    make_project(workspace, files=3)
    sid = await new_session(server, workspace)
    fake_llm.script(Reply.tool_call("codebase_search", {"query": "invoice total"}), Reply.text("It is in billing.py"))
    await server.request("agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "where?"}]})
    first = fake_llm.chat_requests()[1].json["messages"][-1]
    assert first["role"] == "tool" and "not built" in first["content"]

    await index_and_wait(server)
    fake_llm.script(Reply.tool_call("codebase_search", {"query": "invoice total"}), Reply.text("billing.py"))
    await server.request("agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "again"}]})
    result = fake_llm.chat_requests()[3].json["messages"][-1]
    assert result["role"] == "tool" and "pkg/billing.py" in result["content"]


async def test_chat_streams_while_indexing(server: LspClient, workspace: Path, fake_llm: FakeLLMServer) -> None:
    make_project(workspace, files=400)
    sid = await new_session(server, workspace)
    fake_llm.script(Reply(steps=[Text("streaming "), Delay(0.05), Text("while "), Delay(0.05), Text("indexing")]))
    await server.request("agent/_index/start", {})
    result = await server.request(
        "agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
    )
    assert result == {"stopReason": "end_turn"}
    assert server.text(sid) == "streaming while indexing"
    await server.wait_for(lambda: any(v["kind"] == "end" for v in progress_values(server)), timeout=120)


async def test_progress_cancel_stops_the_build(server: LspClient, workspace: Path) -> None:
    make_project(workspace, files=600)
    await server.request("agent/_index/start", {})
    await server.wait_for(lambda: any(v["kind"] == "begin" for v in progress_values(server)), timeout=30)
    token = next(p["token"] for _, m, p in server.notifications if m == "$/progress")
    server.notify("window/workDoneProgress/cancel", {"token": token})
    await server.wait_for(lambda: any(v["kind"] == "end" for v in progress_values(server)), timeout=60)
    end = next(v for v in progress_values(server) if v["kind"] == "end")
    assert "cancelled" in str(end["message"])


async def test_restart_refreshes_an_existing_index(start_server, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    make_project(workspace, files=3)
    first = await start_server(workspace, {})
    await index_and_wait(first)
    await first.close()
    (workspace / "pkg" / "late.py").write_text("def settle_disputed_payment():\n    pass\n")

    second = await start_server(workspace, {})
    await second.wait_for(lambda: any(v["kind"] == "end" for v in progress_values(second)), timeout=60)
    end = next(v for v in progress_values(second) if v["kind"] == "end")
    assert "(1 processed)" in str(end["message"]), end  # only the new file
    hits = (await second.request("agent/_index/search", {"query": "settle_disputed_payment"}))["results"]
    assert hits and hits[0]["path"] == "pkg/late.py"
