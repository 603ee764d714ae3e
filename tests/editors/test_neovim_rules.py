"""Issue 31 in real headless Neovim: the rules' share on the context meter, slash commands, MCP resource mentions."""

from __future__ import annotations

from pathlib import Path

from tests.editors.test_neovim import Nvim, errors, nvim  # noqa: F401  (the fixture)
from tests.fakes.fake_llm import FakeLLMServer, Reply


def test_the_winbar_shows_the_rules_share_and_that_some_were_cut(
    nvim: Nvim,  # noqa: F811
    workspace: Path,
    fake_llm: FakeLLMServer,
) -> None:
    fake_llm.models[0].context_length = 4096
    (workspace / "AGENTS.md").write_text("Use tabs (root rule R1).\n")
    (workspace / "CONVENTIONS.md").write_text("".join(f"Convention {i}: keep it short.\n" for i in range(400)))
    fake_llm.script(Reply.text("hello"))
    result = nvim.run("rules.lua")
    assert result["waited"], result
    assert "· rules " in result["winbar"] and ", cut" in result["winbar"], result["winbar"]
    assert errors(result) == []
    system = fake_llm.chat_requests()[0].json["messages"][0]["content"]
    assert "R1" in system and "CONVENTIONS.md (lines" in system


def test_slash_commands_complete_in_the_input_and_reach_the_model_expanded(
    nvim: Nvim,  # noqa: F811
    workspace: Path,
    fake_llm: FakeLLMServer,
) -> None:
    commands = workspace / ".agent-server" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1 now.")
    fake_llm.script(Reply.text("hi"), Reply.text("Reviewed."))
    result = nvim.run("commands.lua")
    assert result["waited"] and result["waited2"], result
    assert result["items"] == [{"word": "/review ", "abbr": "/review <file>", "menu": "Review a file"}]
    assert result["after_keys"] == "/review ", "the real <C-x><C-u> completion put the command in the input"
    assert fake_llm.chat_requests()[1].json["messages"][-1]["content"] == "Review calc.py now."
    assert "/review calc.py" in result["chat_text"], "the chat shows what the user typed"
    assert errors(result) == []


def test_mcp_resources_complete_after_at_and_are_read_when_sent(
    nvim: Nvim,  # noqa: F811
    workspace: Path,
    fake_llm: FakeLLMServer,
) -> None:
    import sys

    server = str(Path(__file__).parents[1] / "fakes" / "mcp_stdio_server.py")
    (workspace / "README.md").write_text("# readme in the workspace\n")
    fake_llm.script(Reply.text("hi"), Reply.text("Summarized."))
    settings = {"mcpServers": {"docs": {"command": sys.executable, "args": [server]}}}
    result = nvim.run("resources.lua", setup={"settings": settings})
    assert result["waited"] and result["waited2"], result
    assert result["start"] == 10
    assert result["items"][0] == {"word": "@docs:docs://readme", "menu": "mcp"}, result["items"]
    assert {"word": "@README.md"} in result["items"] or any(i["word"] == "@README.md" for i in result["items"])
    assert result["after_keys"] == "Summarize @docs:docs://readme", result["after_keys"]
    content = fake_llm.chat_requests()[-1].json["messages"][-1]["content"]
    assert "The readme from the MCP server (resource R9)." in content, content
    assert errors(result) == []
