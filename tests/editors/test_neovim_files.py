"""Issue 42, files and tabs as Neovim shows them: a file without a final newline edited by the agent is saved as the
agent wrote it (the next :w does not warn that it changed since reading), a CRLF file's review shows no `^M`, and the
tab line names the review's tab and the chat in words."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.editors.test_neovim import Nvim, errors
from tests.editors.test_neovim import nvim as nvim  # the fixture
from tests.fakes.fake_llm import FakeLLMServer, Reply

pytestmark = pytest.mark.timeout(150)


def test_agent_edits_keep_or_change_the_final_newline_as_written_and_the_next_save_does_not_warn(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    files = {"tail.txt": "a\nb", "head.txt": "a\nb", "grow.txt": "a\nb", "trim.txt": "a\nb\n"}
    for name, text in files.items():
        (workspace / name).write_bytes(text.encode())
    finals = {"tail.txt": "a\nc", "head.txt": "x\nb", "grow.txt": "a\nc\n", "trim.txt": "a\nc"}
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "tail.txt", "old_text": "b", "new_text": "c"}),  # at the end
        Reply.text("ok"),
        Reply.tool_call("edit_file", {"path": "head.txt", "old_text": "a", "new_text": "x"}),  # not at the end
        Reply.text("ok"),
        Reply.tool_call("write_file", {"path": "grow.txt", "content": finals["grow.txt"]}),  # adds one
        Reply.text("ok"),
        Reply.tool_call("write_file", {"path": "trim.txt", "content": finals["trim.txt"]}),  # drops it
        Reply.text("ok"),
    )
    cases = [{"file": name, "prompt": f"Change {name}"} for name in files]
    result = nvim.run("final_newline.lua", setup={"approval": "allow", "cases": cases})
    for case, (name, final) in zip(result["cases"], finals.items(), strict=True):
        assert case["done"], name
        assert case["disk"] == final, (name, case)
        assert case["reloaded"] == [], f"{name} changed on disk behind the buffer: {case}"
        assert case["buffer"] == final.splitlines() and case["eol"] == final.endswith("\n"), (name, case)
        assert not case["modified"], (name, case)
    assert errors(result) == []


CRLF = "def add(a, b):\r\n    return a - b\r\n"
EDIT = {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"}


def test_a_crlf_files_diff_review_shows_no_carriage_returns_and_the_file_keeps_crlf(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_bytes(CRLF.encode())
    fake_llm.script(Reply.tool_call("edit_file", EDIT), Reply.text("ok"))
    result = nvim.run("review_diff.lua", setup={"file": "calc.py", "prompt": "Fix the sign", "keys": "gy"})
    assert result["is_diff"], result
    assert result["left"] == ["def add(a, b):", "    return a - b"], result["left"]
    assert result["right"] == ["def add(a, b):", "    return a + b"], result["right"]
    assert result["waited"] and result["stop_reason"] == "end_turn"
    assert (workspace / "calc.py").read_bytes() == CRLF.replace("a - b", "a + b").encode()
    assert "Allow once (as you reviewed it)" not in result["chat"]  # nothing was changed by the review
    assert "\r" not in result["chat"]
    assert errors(result) == []


def test_a_crlf_files_review_window_and_chat_show_no_carriage_returns(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_bytes(CRLF.encode())
    fake_llm.script(Reply.tool_call("edit_file", EDIT), Reply.text("ok"))
    result = nvim.run("approval.lua", setup={"file": "calc.py", "prompt": "Fix", "key": "a", "review_diff": False})
    review = "\n".join(result["review"])
    assert "-    return a - b" in review and "+    return a + b" in review, review
    assert "\r" not in review and "\r" not in result["chat_while_open"] and "\r" not in result["chat"]
    assert result["waited"] and (workspace / "calc.py").read_bytes() == CRLF.replace("a - b", "a + b").encode()
    assert errors(result) == []


@pytest.mark.parametrize("opted_out", [False, True])
def test_the_tab_line_names_the_review_and_the_chat_in_words(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer, opted_out: bool
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    fake_llm.script(Reply.tool_call("edit_file", {**EDIT}), Reply.text("ok"))
    setup: dict[str, object] = {"tabline": False} if opted_out else {}
    result = nvim.run("tab_labels.lua", setup=setup)
    assert result["pending"] and result["waited"]
    line = result["tabline"]
    if opted_out:  # tabline = false: Neovim's own, untouched
        assert result["option"] == "" and "a//p/calc.py" in line, line
        return
    assert " 3 agent chat " in line and " 2 calc.py (proposed) " in line, line
    assert "a//" not in line, line
