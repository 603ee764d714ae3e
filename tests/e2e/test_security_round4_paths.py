"""Issue 38 through the real server: path rules judged on where a path really lands (committed links cannot carry
an allowed write to another file, nor a denied file past its deny rule, whether the path comes from a tool call, a
files-format block, a custom command's file or an MCP resource mention), and repository content that must not reach
the prompt: command files linked out of the workspace, and a rules-cut note as long as the repository makes it."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from agent_server.context import estimate_text
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import answer_permissions, install_apply_edit, prompt, sent_messages
from tests.fakes.fake_llm import FakeLLMServer, FakeToolCall, Reply, ToolCalls

SECRET = "TOKEN=s3cret-value-42"
MAKEFILE = "test:\n\ttrue\n"
FILE_SERVER = str(Path(__file__).parents[1] / "fakes" / "mcp_file_server.py")


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def everything_sent(fake: FakeLLMServer) -> str:
    return "\n".join(str(r.json["messages"]) for r in fake.chat_requests())


def rules(*rules: tuple[str, str, str]) -> dict[str, Any]:
    return {"rules": [{"tool": t, "pattern": p, "policy": v} for t, p, v in rules]}


async def test_an_allowed_folder_s_link_does_not_carry_a_write_to_the_makefile_an_allowed_make_runs(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    marker = tmp_path / "pwned"
    write(workspace, "Makefile", MAKEFILE)
    (workspace / "docs").mkdir()
    (workspace / "docs" / "up").symlink_to("..")  # committed in the repository
    tools = rules(("write_file", "docs/**", "allow"), ("run_command", "make test*", "allow"))
    client = await start_server(workspace, {**llm_options(fake_llm), "tools": tools})
    asked = answer_permissions(client, "reject_once")
    install_apply_edit(client)
    evil = f"test:\n\ttouch {marker}\n"
    calls = [
        FakeToolCall("write_file", {"path": "docs/guide.md", "content": "# Guide\n"}),  # allowed, not asked
        FakeToolCall("write_file", {"path": "docs/up/Makefile", "content": evil}),
        FakeToolCall("write_file", {"path": "docs/up/new.mk", "content": evil}),  # a new file through the link
        FakeToolCall("run_command", {"command": "make test"}),
    ]
    fake_llm.script(Reply(steps=[ToolCalls(calls)]), Reply.text("done"))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "write the guide") == "end_turn"
    assert (workspace / "docs" / "guide.md").read_text() == "# Guide\n"
    assert (workspace / "Makefile").read_text() == MAKEFILE and not (workspace / "new.mk").exists()
    assert not marker.exists(), "a program of the model's choosing ran with no question"
    assert [p["toolCall"]["rawInput"]["path"] for p in asked] == ["docs/up/Makefile", "docs/up/new.mk"]
    why = " ".join(asked[0]["toolCall"]["_meta"]["why"])
    assert "through a link it is Makefile" in why


async def test_a_denied_file_is_not_read_through_a_link(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    write(workspace, ".env", SECRET + "\n")
    (workspace / "notes.txt").symlink_to(".env")
    (workspace / "cfg").symlink_to(".")
    client = await start_server(workspace, {**llm_options(fake_llm), "tools": rules(("*_file", ".env*", "deny"))})
    answer_permissions(client, "allow_once")
    calls = [
        FakeToolCall("read_file", {"path": "notes.txt"}),
        FakeToolCall("read_file", {"path": "cfg/.env"}),
        FakeToolCall("edit_file", {"path": "notes.txt", "old_text": "TOKEN", "new_text": "x"}),
    ]
    fake_llm.script(Reply(steps=[ToolCalls(calls)]), Reply.text("done"))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "what is in notes.txt?") == "end_turn"
    assert "s3cret" not in everything_sent(fake_llm)
    results = [str(m["content"]) for m in sent_messages(fake_llm, 1) if m["role"] == "tool"]
    assert len(results) == 3 and all("deny rule" in r for r in results), results
    assert (workspace / ".env").read_text() == SECRET + "\n"


async def test_always_allow_through_a_link_does_not_follow_the_link_elsewhere(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "docs").mkdir()
    (workspace / "secrets").mkdir()
    (workspace / "docs" / "up").symlink_to("..")
    client = await start_server(workspace, llm_options(fake_llm))
    asked = answer_permissions(client, "allow_always", "reject_once")
    install_apply_edit(client)
    call = Reply.tool_call("write_file", {"path": "docs/up/notes.md", "content": "hello\n"})
    fake_llm.script(call, Reply.text("done"), call, Reply.text("done"))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "write notes") == "end_turn"
    assert (workspace / "notes.md").read_text() == "hello\n" and len(asked) == 1
    (workspace / "docs" / "up").unlink()
    (workspace / "docs" / "up").symlink_to("../secrets")  # the same written path now lands elsewhere
    assert await prompt(client, sid, "write notes again") == "end_turn"
    assert len(asked) == 2, "the remembered answer named the old target, not whatever the link points at now"
    assert not (workspace / "secrets" / "notes.md").exists()


async def test_a_files_format_block_through_a_link_is_judged_where_it_lands(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    """A `conftest.py` is code that an allowed `pytest*` runs: a block naming it through `docs/up` is asked."""
    marker = tmp_path / "pwned"
    write(workspace, "docs/helpers.py", "VALUE = 1\n")
    (workspace / "docs" / "up").symlink_to("..")
    evil = f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n"
    answer = f"docs/helpers.py\n```python\nVALUE = 2\n```\n\ndocs/up/conftest.py\n```python\n{evil}```\n"
    fake_llm.script(Reply.text(answer), Reply.text("ok"))
    tools = rules(("write_file", "docs/**", "allow"))
    client = await start_server(workspace, {**llm_options(fake_llm), "agent": {"editFormat": "files"}, "tools": tools})
    asked = answer_permissions(client, "reject_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Set VALUE to 2 in docs/helpers.py.") == "end_turn"
    assert (workspace / "docs" / "helpers.py").read_text() == "VALUE = 2\n"  # allowed: written, not asked
    assert not (workspace / "conftest.py").exists()
    assert [p["toolCall"]["rawInput"]["path"] for p in asked] == ["docs/up/conftest.py"]


async def test_command_files_linked_out_of_the_workspace_or_to_a_denied_file_are_not_read(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    write(outside, "private.md", "OUTSIDE-FILE-CONTENT")
    write(outside, "cmds/folder.md", "OUTSIDE-FOLDER-CONTENT")
    write(workspace, ".env", SECRET + "\n")
    write(workspace, ".agent-server/commands/fine.md", "A fine command (F1).")
    (workspace / ".claude" / "commands").mkdir(parents=True)
    (workspace / ".claude" / "commands" / "leak.md").symlink_to(outside / "private.md")
    (workspace / ".claude" / "commands" / "env.md").symlink_to("../../.env")
    (workspace / ".github").mkdir()
    (workspace / ".github" / "prompts").symlink_to(outside / "cmds")  # a linked folder
    (outside / "cmds" / "folder.prompt.md").write_text("OUTSIDE-FOLDER-CONTENT")
    write(workspace, ".agent-server/commands/private.md", "PRIVATE-FIRST-LINE\nmore")
    denied = rules(("*_file", ".env*", "deny"), ("read_file", "*private*", "deny"))
    client = await start_server(workspace, {**llm_options(fake_llm), "tools": denied})
    sid = await new_session(client, workspace)
    listed = await client.request("agent/_commands/list", {"sessionId": sid})
    names = {c["name"]: c for c in listed["commands"]}
    assert "fine" in names and not {"env", "leak", "folder", "private"} & set(names), names
    assert "s3cret" not in str(listed) and "PRIVATE" not in str(listed)  # not even a denied file's first line
    fake_llm.script(*[Reply.text("ok")] * 4)
    for text in ("/fine", "/leak", "/env", "/folder"):
        assert await prompt(client, sid, text) == "end_turn"
    sent = [sent_messages(fake_llm, i)[-1]["content"] for i in range(4)]
    assert sent == ["A fine command (F1).", "/leak", "/env", "/folder"]  # an unknown `/word` is plain text
    assert "OUTSIDE" not in everything_sent(fake_llm) and "s3cret" not in everything_sent(fake_llm)


async def test_an_mcp_mention_of_a_denied_file_is_not_read(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    write(workspace, ".env", SECRET + "\n")
    write(workspace, "README.md", "The readme (R2).")
    (workspace / "notes.txt").symlink_to(".env")
    served = [workspace / "notes.txt", workspace / ".env", workspace / "README.md"]
    client = await start_server(workspace, {**llm_options(fake_llm), "tools": rules(("*_file", ".env*", "deny"))})
    env = [{"name": "FAKE_MCP_FILES", "value": os.pathsep.join(str(p) for p in served)}]
    spec = {"name": "files", "command": sys.executable, "args": [FILE_SERVER], "env": env}
    sid = (await client.request("agent/session/new", {"cwd": str(workspace), "mcpServers": [spec]}))["sessionId"]
    for _ in range(100):  # the MCP server starts in the background
        if (await client.request("agent/_resources/list", {"sessionId": sid}))["resources"]:
            break
        await asyncio.sleep(0.1)
    text = " ".join(f"@files:{p.as_uri()}" for p in served)
    fake_llm.script(Reply.text("ok"))
    assert await prompt(client, sid, f"Summarize {text}") == "end_turn"
    content = sent_messages(fake_llm, 0)[-1]["content"]
    assert "The readme (R2)." in content and "s3cret" not in content
    assert content.count("is not read: a deny rule for read_file matches") == 2, content


async def test_hundreds_of_rules_files_with_long_names_leave_the_prompt_inside_the_window(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.models[0].context_length = 4096
    write(workspace, "AGENTS.md", "Use tabs (root rule R1).")
    for i in range(300):
        name = f"team-{i:03d}" + ("-long-name" * 8 if i % 2 else "")  # some too long to be named in the note
        write(workspace, f".cursor/rules/{name}.mdc", f"Rule {i}: be careful.\n" * 30)
    client = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(client, workspace)
    fake_llm.script(Reply.text("ok"), Reply.text("ok"))
    assert await prompt(client, sid, "hello") == "end_turn"
    assert await prompt(client, sid, "hello again") == "end_turn"
    system = str(sent_messages(fake_llm, 1)[0]["content"])
    rules_part = system[system.index("<rules") :]
    assert estimate_text(rules_part) <= 4096 / 8, "the rules, note included, stay within an eighth of a 4k window"
    assert "Use tabs (root rule R1)." in system
    assert "rules cut to fit the model's window:" in system and "more rules files" in system
    usage = [u for u in client.updates(sid) if u["sessionUpdate"] == "usage_update"]
    assert len(usage[-1]["_meta"]["agentServer"]["rules"]["cut"]) <= 21


async def test_the_files_format_never_pastes_a_denied_file_or_one_reached_through_a_link(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """The files format shows the files a request names in the prompt: a `.env*` deny rule keeps `.env.local` out of
    it, whether the request names it or names it through a folder link (`cfg/.env.local`, `cfg -> .`)."""
    write(workspace, ".env.local", SECRET + "\n")
    write(workspace, "app.py", "VALUE = 1\n")
    (workspace / "cfg").symlink_to(".")
    fake_llm.script(Reply.text("I cannot see it."), Reply.text("ok"))
    tools = rules(("read_file", ".env*", "deny"))
    client = await start_server(workspace, {**llm_options(fake_llm), "agent": {"editFormat": "files"}, "tools": tools})
    answer_permissions(client, "reject_once")
    sid = await new_session(client, workspace)
    request = "Fix the TOKEN in .env.local and in cfg/.env.local, then set VALUE to 2 in app.py."
    assert await prompt(client, sid, request) == "end_turn"
    sent = everything_sent(fake_llm)
    assert "s3cret-value-42" not in sent
    assert "VALUE = 1" in sent, "the file the rules allow is still shown"


async def test_search_text_does_not_show_the_lines_of_a_denied_file(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """A read_file deny rule for `.env*` is about the file's content: search_text over the workspace leaves it out."""
    write(workspace, ".env.local", SECRET + "\n")
    write(workspace, "settings.py", "TOKEN = os.environ['TOKEN']\n")
    fake_llm.script(Reply.tool_call("search_text", {"pattern": "TOKEN"}), Reply.text("found it"))
    tools = rules(("read_file", ".env*", "deny"))
    client = await start_server(workspace, {**llm_options(fake_llm), "tools": tools})
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Where is TOKEN set?") == "end_turn"
    sent = everything_sent(fake_llm)
    assert "settings.py:1" in sent and "s3cret-value-42" not in sent
