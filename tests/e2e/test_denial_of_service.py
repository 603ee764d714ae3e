"""Denial of service through the real server (issue 23): inputs that used to hang or exhaust it.

Workspace entries that are not regular files (a FIFO, a link to /dev/zero or /dev/stdin), as a file the model
reads or searches, as `.gitignore`, as an agent profile; regular expressions and globs that backtrack forever;
link loops; index workers left behind by a killed server. Each test checks that the call answers, that the
answer makes sense, and that the server keeps answering other requests (a new session, another search).
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from agent_server.index.pool import usable_cpus
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import final_tool_updates, prompt_params, update_text
from tests.fakes.fake_llm import FakeLLMServer, FakeToolCall, Reply, ToolCalls
from tests.lsp_client import LspClient


async def prompt(client: LspClient, sid: str, text: str, limit_s: float = 90) -> str:
    result = await client.request("agent/session/prompt", prompt_params(sid, text), timeout=limit_s)
    return str(result["stopReason"])


def hostile_workspace(ws: Path) -> None:
    """Every kind of file that blocks or never ends, beside normal files holding a findable word."""
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("NEEDLE = 1\n")
    (ws / "notes.md").write_text("a NEEDLE in the notes\n")
    os.mkfifo(ws / "pipe.py")
    os.mkfifo(ws / "src" / "pipe.md")
    (ws / "zero.txt").symlink_to("/dev/zero")
    (ws / "stdin.txt").symlink_to("/dev/stdin")
    (ws / "urandom.py").symlink_to("/dev/urandom")
    (ws / "self_loop").symlink_to("self_loop")
    (ws / "ping").symlink_to("pong")
    (ws / "pong").symlink_to("ping")
    (ws / "src" / "up").symlink_to("..")  # a folder loop
    (ws / "long.txt").write_text("a" * 30_000 + "b\n" + "NEEDLE\n")


async def run_calls(client: LspClient, fake: FakeLLMServer, ws: Path, calls: list[FakeToolCall]) -> list[str]:
    """The calls as one scripted turn; the text of each result, in order."""
    fake.script(Reply(steps=[ToolCalls(calls)]), Reply.text("done"))
    sid = await new_session(client, ws)
    assert await prompt(client, sid, "go", limit_s=90) == "end_turn"
    finals = final_tool_updates(client, sid)
    starts = [u["toolCallId"] for u in client.updates(sid) if u["sessionUpdate"] == "tool_call"]
    by_id = {u["toolCallId"]: u for u in finals}
    return [update_text(by_id[i]) for i in starts]


async def still_answers(client: LspClient, ws: Path) -> None:
    """Another session starts and the permission list answers: the server is not stuck."""
    assert (await new_session(client, ws)).startswith("sess_")
    await client.request("agent/_permissions/list", {"cwd": str(ws)}, timeout=10)


async def test_files_that_block_or_never_end_are_refused_and_the_server_keeps_answering(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    hostile_workspace(workspace)
    client = await start_server(workspace, {**llm_options(fake_llm), "tools": {"max_per_request": 40}})
    reads = ["pipe.py", "src/pipe.md", "zero.txt", "stdin.txt", "urandom.py", "self_loop", "ping"]
    # More blocked reads than the server has worker threads: they used to exhaust the pool for good.
    calls = [FakeToolCall("read_file", {"path": p}) for p in reads * 2]
    calls += [FakeToolCall("search_text", {"pattern": "NEEDLE"}), FakeToolCall("find_files", {"pattern": "**/*"})]
    calls += [FakeToolCall("list_directory", {"path": "."}), FakeToolCall("list_directory", {"path": "src/up"})]
    texts = await run_calls(client, fake_llm, workspace, calls)
    for text in texts[: len(reads) * 2]:
        assert text.startswith("Error"), text  # not a regular file, a loop, or a link out of the workspace
    search, find = texts[len(reads) * 2], texts[len(reads) * 2 + 1]
    assert "src/app.py:1" in search and "notes.md:1" in search and "long.txt" in search, search
    assert "src/app.py" in find and "pipe.py" not in find and "zero.txt" not in find, find
    await still_answers(client, workspace)


async def test_a_gitignore_or_profile_linked_to_a_device_does_not_hang_the_server(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "main.py").write_text("NEEDLE = 2\n")
    (workspace / ".gitignore").symlink_to("/dev/zero")
    agents = workspace / ".agent-server" / "agents"
    agents.mkdir(parents=True)
    (agents / "zero.md").symlink_to("/dev/zero")
    os.mkfifo(agents / "fifo.md")
    (agents / "stdin.md").symlink_to("/dev/stdin")
    client = await start_server(workspace, llm_options(fake_llm))
    modes = (await client.request("agent/session/new", {"cwd": str(workspace), "mcpServers": []}))["modes"]
    assert "code" in [m["id"] for m in modes["availableModes"]]
    texts = await run_calls(
        client,
        fake_llm,
        workspace,
        [
            FakeToolCall("search_text", {"pattern": "NEEDLE"}),
            FakeToolCall("find_files", {"pattern": "*.py"}),
            FakeToolCall("list_directory", {"path": "."}),
        ],
    )
    assert "main.py:1" in texts[0] and "main.py" in texts[1] and "main.py" in texts[2], texts
    await still_answers(client, workspace)


# Patterns that take exponential time in a backtracking engine, against the 30,001-character line of long.txt.
REDOS = ["(a+)+$", "(a|a)+$", "(a|aa)+$", "(a*)*b$", "(.*a){25}$", "^(a+)+c", "(\\w+\\s?)+$", "(a?){30}a{30}"]
# Globs whose naive translation backtracks: `a**a**...b` against a long name.
GLOBS = ["a**a**a**a**a**a**a**a**a**a**a**b", "*a*a*a*a*a*a*a*a*a*a*a*a*b", "**/" + "*a" * 20 + "*b"]


async def test_patterns_that_backtrack_forever_answer_at_once(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    hostile_workspace(workspace)
    (workspace / ("a" * 200)).write_text("NEEDLE\n")  # a long file name for the globs
    client = await start_server(workspace, {**llm_options(fake_llm), "tools": {"max_per_request": 40}})
    calls = [FakeToolCall("search_text", {"pattern": p}) for p in REDOS]
    calls += [FakeToolCall("find_files", {"pattern": g}) for g in GLOBS]
    calls += [FakeToolCall("search_text", {"pattern": "NEEDLE", "glob": g}) for g in GLOBS]
    calls += [FakeToolCall("search_text", {"pattern": "(a)\\1"})]  # a backreference: a clear error, not a hang
    turn = asyncio.ensure_future(run_calls(client, fake_llm, workspace, calls))
    # While those run, the server answers others: a new session and a cancel of nothing in particular.
    await still_answers(client, workspace)
    texts = await asyncio.wait_for(turn, 90)
    for text in texts[: len(REDOS)]:
        assert "match" in text.lower(), text
    assert "lookaround and backreferences" in texts[-1]
    await still_answers(client, workspace)


async def test_a_cancelled_turn_stops_its_search_and_later_calls_work(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    hostile_workspace(workspace)
    for i in range(300):
        (workspace / "src" / f"f{i}.txt").write_text("x" * 5000 + "\n")
    client = await start_server(workspace, llm_options(fake_llm))
    calls = [FakeToolCall("search_text", {"pattern": f"(x+x+)+y{i}", "path": "src"}) for i in range(10)]
    fake_llm.script(Reply(steps=[ToolCalls(calls)]))  # the closing reply is the default one, if asked for at all
    sid = await new_session(client, workspace)
    turn = asyncio.ensure_future(prompt(client, sid, "go", limit_s=90))
    await client.wait_for(lambda: any(u["sessionUpdate"] == "tool_call" for u in client.updates(sid)), timeout=30)
    client.notify("agent/session/cancel", {"sessionId": sid})
    assert await asyncio.wait_for(turn, 60) in ("cancelled", "end_turn")
    texts = await run_calls(client, fake_llm, workspace, [FakeToolCall("search_text", {"pattern": "NEEDLE"})])
    assert "src/app.py:1" in texts[0], texts


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads process children from /proc (Linux)")
@pytest.mark.skipif(usable_cpus() < 2, reason="the index uses worker processes only with two cores or more")
async def test_index_workers_do_not_outlive_a_killed_server(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "pkg").mkdir()
    for i in range(200):
        (workspace / "pkg" / f"mod{i}.py").write_text(f"def helper_{i}(x):\n    return x * {i}\n")
    client = await start_server(workspace, llm_options(fake_llm))
    assert (await client.request("agent/_index/start", {}))["started"] is True

    def ended() -> bool:
        values: list[Any] = [p["value"] for _, m, p in client.notifications if m == "$/progress"]
        return any(v["kind"] == "end" for v in values)

    await client.wait_for(ended, timeout=90)
    workers = _children(client.proc.pid)
    assert workers, "the index build started no worker processes"
    client.proc.send_signal(signal.SIGKILL)
    await client.proc.wait()
    for _ in range(300):  # the workers notice within a fraction of a second; this waits at most 30 s
        if not any(_alive(w) for w in workers):
            break
        await asyncio.sleep(0.1)
    assert not [w for w in workers if _alive(w)], "index workers kept running (and holding the pipes) after SIGKILL"
