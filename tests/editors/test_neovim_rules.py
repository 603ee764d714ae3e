"""Rules files in real headless Neovim: the context meter (the chat's winbar) shows their share and a cut."""

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
