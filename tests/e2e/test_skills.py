"""Skills through the real server: only each skill's name and one line reach the prompt; the body comes when the model
loads it (`load_skill`) or the user runs `/name`, and not before; the files beside it are readable; a skill that is a
link out of the workspace is not loaded; and with no skills and memory off the prompt and tools are as they were."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from tests import server_zygote
from tests.acp.ndjson_client import AcpProcess
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import prompt, sent_messages, tool_results
from tests.fakes.fake_llm import FakeLLMServer, Reply

PDF = "---\nname: pdf\ndescription: Fill in PDF forms and extract their text.\nallowed-tools: Bash\n---\n"
PDF_BODY = "# PDF\nUse pypdf (skill body B1). Print the first column with `awk '{print $1}'`."


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def user_dir() -> Path:
    return Path(os.environ["XDG_CONFIG_HOME"]) / "agent-server"


def setup_skills(workspace: Path) -> None:
    write(workspace, ".claude/skills/pdf/SKILL.md", PDF + PDF_BODY)
    write(workspace, ".claude/skills/pdf/forms/reference.md", "Form fields are AcroForm (reference R1).")
    write(workspace, ".agents/skills/release/SKILL.md", "---\ndescription: Cut a release.\n---\nTag it (body B2).")
    write(user_dir(), "skills/commit/SKILL.md", "---\ndescription: Write commit messages.\n---\nImperative (B3).")
    write(user_dir(), "skills/commit/template.md", "type(scope): summary (template T1)")


def system_of(fake: FakeLLMServer, index: int) -> str:
    return str(sent_messages(fake, index)[0]["content"])


def tools_of(fake: FakeLLMServer, index: int) -> list[dict[str, Any]]:
    return list(fake.chat_requests()[index].json.get("tools") or [])


async def test_only_names_reach_the_prompt_and_a_skill_loads_on_demand(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    setup_skills(workspace)
    server = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(server, workspace)
    fake_llm.script(
        Reply.tool_call("load_skill", {"name": "pdf"}),
        Reply.tool_call("read_file", {"path": ".claude/skills/pdf/forms/reference.md"}),
        Reply.tool_call("load_skill", {"name": "commit", "file": "template.md"}),
        Reply.tool_call("load_skill", {"name": "commit", "file": "../../config.toml"}),
        Reply.text("done"),
    )
    assert await prompt(server, sid, "fill in the form") == "end_turn"
    system = system_of(fake_llm, 0)
    assert "- pdf: Fill in PDF forms and extract their text." in system
    assert "- release: Cut a release." in system and "- commit: Write commit messages." in system
    assert "B1" not in system and "B2" not in system and "B3" not in system, "no body before it is loaded"
    assert system.index("- commit:") < system.index("From the repository") < system.index("- pdf:")
    results = tool_results(sent_messages(fake_llm, 4))
    assert "B1" in results[0] and "awk '{print $1}'" in results[0], "the body, as written, once loaded"
    assert "in .claude/skills/pdf/;" in results[0] and "- forms/reference.md" in results[0]
    assert "not of the user" in results[0], "an untrusted repository's skill says whose words it is"
    assert "R1" in results[1] and "T1" in results[2], "the files beside a skill are readable"
    assert "not a file of the skill" in results[3]
    assert all(system_of(fake_llm, i) == system for i in range(5)), "the list is byte-stable across requests"

    listed = {c["name"]: c for c in (await server.request("agent/_commands/list", {"sessionId": sid}))["commands"]}
    assert listed["pdf"]["source"] == ".claude/skills/pdf/SKILL.md" and "remember" in listed
    fake_llm.script(Reply.text("filled"))
    assert await prompt(server, sid, "/pdf invoice.pdf") == "end_turn"
    sent = str(sent_messages(fake_llm, 5)[-1]["content"])
    assert "B1" in sent and sent.endswith("invoice.pdf") and "awk '{print $1}'" in sent, "the user's /pdf loads it"
    assert len(fake_llm.chat_requests()) == 6, "a loaded skill's listing of its files earns no read nudge"


async def test_without_skills_or_memory_the_prompt_and_tools_do_not_grow(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    server = await start_server(workspace, llm_options(fake_llm))
    fake_llm.script(Reply.text("a"), Reply.text("b"), Reply.text("c"))
    assert await prompt(server, await new_session(server, workspace), "what is 2+2?") == "end_turn"
    write(workspace, ".claude/skills/pdf/SKILL.md", PDF + PDF_BODY)
    assert await prompt(server, await new_session(server, workspace), "what is 2+2?") == "end_turn"
    bare, skilled = system_of(fake_llm, 0), system_of(fake_llm, 1)
    assert "<skills>" not in bare and "<memory>" not in bare
    names = [t["function"]["name"] for t in tools_of(fake_llm, 0)]
    assert "load_skill" not in names and "remember" not in names
    added = skilled[len(bare) :]
    assert skilled.startswith(bare) and added.startswith("\n\n<skills>") and added.endswith("</skills>")
    assert "- pdf: Fill in PDF forms" in added and "B1" not in added, "only the name and one line are added"
    assert tools_of(fake_llm, 1) == [*tools_of(fake_llm, 0), tools_of(fake_llm, 1)[-1]]
    assert tools_of(fake_llm, 1)[-1]["function"]["name"] == "load_skill"

    (workspace / ".claude").rename(workspace / "gone")
    assert await prompt(server, await new_session(server, workspace), "what is 2+2?") == "end_turn"
    assert system_of(fake_llm, 2) == bare and tools_of(fake_llm, 2) == tools_of(fake_llm, 0), "byte-identical"


async def test_a_skill_that_leads_out_of_the_workspace_is_not_loaded(
    start_server: Start, workspace: Path, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    outside = write(tmp_path / "outside", "evil/SKILL.md", "---\ndescription: Outside skill O1.\n---\nSecret O2.")
    write(tmp_path / "far", "away/SKILL.md", "---\ndescription: Far skill O3.\n---\nFar O4.")
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "skills").symlink_to(tmp_path / "far")  # the whole skills folder is a link out
    (workspace / ".agents" / "skills" / "linked").mkdir(parents=True)
    (workspace / ".agents" / "skills" / "evil").symlink_to(outside.parent)  # a skill folder that is a link out
    (workspace / ".agents" / "skills" / "linked" / "SKILL.md").symlink_to(outside)  # a SKILL.md link out
    (workspace / ".agent-server" / "skills" / "hard").mkdir(parents=True)
    os.link(outside, workspace / ".agent-server" / "skills" / "hard" / "SKILL.md")  # a hard link
    write(workspace, ".agents/skills/good/SKILL.md", "---\ndescription: A skill of the workspace (G1).\n---\nG2.")
    server = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(server, workspace)
    fake_llm.script(Reply.tool_call("load_skill", {"name": "evil"}), Reply.text("ok"), Reply.text("plain"))
    assert await prompt(server, sid, "use a skill") == "end_turn"
    system = system_of(fake_llm, 0)
    assert "- good: A skill of the workspace (G1)." in system, "the workspace's own skill is listed"
    assert "O1" not in system and "O3" not in system
    result = tool_results(sent_messages(fake_llm, 1))[0]
    assert "no skill named 'evil'; the skills are: good" in result and "O2" not in result
    listed = {c["name"] for c in (await server.request("agent/_commands/list", {"sessionId": sid}))["commands"]}
    assert not listed & {"evil", "linked", "hard", "away"}
    assert await prompt(server, sid, "/evil now") == "end_turn"
    assert sent_messages(fake_llm, -1)[-1]["content"] == "/evil now", "not a command: plain text"


async def test_acp_clients_get_skills_and_remember_as_commands(
    tmp_path: Path, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    setup_skills(workspace)
    (user_dir() / "config.toml").write_text("[memory]\nenabled = true\n")
    args = ["--provider", "ollama", "--base-url", fake_llm.url, "--model", fake_llm.models[0].name]
    env = {"AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"), "AGENT_SERVER_INDEX__ENABLED": "false"}
    proc = await AcpProcess.start(args, env, tmp_path)
    try:
        await proc.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        sid = (await proc.request("session/new", {"cwd": str(workspace), "mcpServers": []}))["sessionId"]

        def advertised() -> set[str]:
            updates = [u for u in proc.updates(sid) if u["sessionUpdate"] == "available_commands_update"]
            return {c["name"] for c in updates[-1]["availableCommands"]} if updates else set()

        for _ in range(100):
            if advertised():
                break
            await asyncio.sleep(0.05)
        assert {"pdf", "commit", "release", "remember"} <= advertised()
        remembered = {"sessionId": sid, "prompt": [{"type": "text", "text": "/remember Prefer pathlib (A1)."}]}
        assert (await proc.request("session/prompt", remembered))["stopReason"] == "end_turn"
        assert fake_llm.chat_requests() == [] and "A1" in (user_dir() / "memory.md").read_text()
        fake_llm.script(Reply.text("ok"))
        run = {"sessionId": sid, "prompt": [{"type": "text", "text": "/commit the parser fix"}]}
        assert (await proc.request("session/prompt", run))["stopReason"] == "end_turn"
        request = fake_llm.chat_requests()[0].json
        assert "B3" in request["messages"][-1]["content"] and "A1" in request["messages"][0]["content"]
    finally:
        await proc.close()


def test_the_terminal_runs_a_skill(workspace: Path, fake_llm: FakeLLMServer) -> None:
    setup_skills(workspace)
    base = ["chat", "-w", str(workspace), "--provider", "ollama"]
    base += ["--base-url", fake_llm.url, "--model", fake_llm.models[0].name]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "300"}
    fake_llm.script(Reply.text("released"))
    proc = server_zygote.run([*base, "/release v2"], env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "B2" in fake_llm.chat_requests()[0].json["messages"][-1]["content"]
    repl = server_zygote.run(base, input="/help\n", env=env, timeout=60)
    assert "/pdf: Fill in PDF forms and extract their text. (.claude/skills/pdf/SKILL.md)" in repl.stderr
