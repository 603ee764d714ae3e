"""Issue 41 part 4 through the real server: the editor's language servers as tools. An editor that announces
`codeRequest` answers `agent/_code` (here from jedi, as a Python language server would, in UTF-16 positions); the
model names a line and a symbol, the server finds the column, asks the editor and shows bounded results. A rename
is reviewed like any edit (the diff of every file it touches) and lands through workspace/applyEdit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.code_editor import SAMPLE, JediEditor, path_of, write_sample
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import (
    answer_permissions,
    install_apply_edit,
    prompt,
    sent_messages,
    tool_results,
    validate_updates,
)
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient

CODE_TOOLS = {"find_definition", "find_references", "hover", "document_symbols", "rename_symbol"}
EDITOR = {"codeRequest": True}


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or []]


async def code_server(start_server: Start, workspace: Path, fake_llm: FakeLLMServer, **extra: Any) -> LspClient:
    write_sample(workspace)
    server = await start_server(workspace, {**llm_options(fake_llm), **EDITOR, **extra})
    JediEditor(workspace).install(server)
    return server


async def run_one(server: LspClient, workspace: Path, fake_llm: FakeLLMServer, name: str, args: dict[str, Any]) -> str:
    fake_llm.script(Reply.tool_call(name, args), Reply.text("done"))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "look at the code") == "end_turn"
    return tool_results(sent_messages(fake_llm, len(fake_llm.chat_requests()) - 1))[-1]


async def test_code_tools_are_offered_only_where_an_editor_serves_them(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """A plain session's fixed prompt (system prompt and tools) is byte for byte what an editor with language servers
    gets minus the five tools; an editor serving only some requests gets only those."""
    write_sample(workspace)
    bodies = []
    for options in ({}, EDITOR, {"codeRequest": ["definition", "hover"]}):
        server = await start_server(workspace, {**llm_options(fake_llm), **options})
        fake_llm.script(Reply.text("Hello."))
        sid = await new_session(server, workspace)
        assert await prompt(server, sid, "hi") == "end_turn"
        bodies.append(fake_llm.chat_requests()[-1].json)
        await server.close()
    plain, full, partial = bodies
    assert not CODE_TOOLS & set(tool_names(plain))
    assert CODE_TOOLS <= set(tool_names(full))
    assert CODE_TOOLS & set(tool_names(partial)) == {"find_definition", "hover"}
    assert plain["messages"][0] == full["messages"][0]  # the system prompt does not change
    others = [t for t in full["tools"] if t["function"]["name"] not in CODE_TOOLS]
    assert json.dumps(plain["tools"]) == json.dumps(others)


async def test_read_only_modes_get_the_reading_code_tools_and_never_rename(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    server = await code_server(start_server, workspace, fake_llm)
    for mode in ("ask", "plan"):
        fake_llm.script(Reply.text("Hello."))
        sid = await new_session(server, workspace)
        assert await server.request("agent/session/set_mode", {"sessionId": sid, "modeId": mode}) == {}
        assert await prompt(server, sid, "hi") == "end_turn"
        offered = set(tool_names(fake_llm.chat_requests()[-1].json)) & CODE_TOOLS
        assert offered == CODE_TOOLS - {"rename_symbol"}, (mode, offered)


async def test_find_definition_finds_the_column_and_shows_the_definition(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    server = await code_server(start_server, workspace, fake_llm)
    editor = JediEditor(workspace)
    editor.install(server)
    result = await run_one(
        server, workspace, fake_llm, "find_definition", {"path": "main.py", "line": 3, "symbol": "total"}
    )
    assert "calc.py:4\n" in result and "def total(xs):" in result and "Add up the numbers" in result, result
    assert "editor's language server" in result
    asked = editor.asked[-1]
    assert asked["kind"] == "definition" and path_of(asked["uri"]) == workspace / "main.py"
    # After "é😀" the column is 20 code points but 21 UTF-16 units: the editor got its own units.
    assert asked["position"] == {"line": 2, "character": 21}
    # A small model's line is often off by one, and its symbol written as a call: the nearest use is taken.
    near = await run_one(
        server, workspace, fake_llm, "find_definition", {"path": "main.py", "line": 5, "symbol": "total()"}
    )
    assert "`total` is not on line 5; using line 4, where it is." in near and "calc.py:4" in near, near
    assert editor.asked[-1]["position"] == {"line": 3, "character": 6}


async def test_find_references_lists_every_use_workspace_relative(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    server = await code_server(start_server, workspace, fake_llm)
    result = await run_one(
        server, workspace, fake_llm, "find_references", {"path": "calc.py", "line": 4, "symbol": "total"}
    )
    assert "5 in 2 files:" in result, result
    for place in ("calc.py:4: def total(xs):", "calc.py:14: return total(self.items)", "main.py:1: from calc import total",
                  'main.py:3: label = "é😀"; print(total([1, 2]))', "main.py:4: print(total([3]))"):  # fmt: skip
        assert place in result, (place, result)
    assert str(workspace) not in result  # workspace-relative


async def test_hover_and_document_symbols(start_server: Start, workspace: Path, fake_llm: FakeLLMServer) -> None:
    server = await code_server(start_server, workspace, fake_llm)
    hover = await run_one(server, workspace, fake_llm, "hover", {"path": "main.py", "line": 4})
    assert "`print` at main.py:4" in hover and "print(" in hover, hover  # no symbol: the first name on the line
    outline = await run_one(server, workspace, fake_llm, "document_symbols", {"path": "calc.py"})
    assert "4-6 function total" in outline and "9-14 class Basket" in outline, outline
    assert "  13-14 function price" in outline  # nested under its class


async def test_rename_is_reviewed_with_every_file_and_lands_through_the_editor(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    server = await code_server(start_server, workspace, fake_llm)
    asked = answer_permissions(server, "allow_once")
    applied = install_apply_edit(server)
    args = {"path": "main.py", "line": 4, "symbol": "total", "new_name": "grand_total"}
    result = await run_one(server, workspace, fake_llm, "rename_symbol", args)

    assert (workspace / "calc.py").read_text() == SAMPLE["calc.py"].replace("total", "grand_total")
    assert (workspace / "main.py").read_text() == SAMPLE["main.py"].replace("total", "grand_total")
    assert result.startswith("Renamed `total` to `grand_total`: 5 changes in 2 files"), result
    # Asked once, showing the diff of both files before anything changed; applied as one workspace edit.
    assert len(asked) == 1
    diffs = {c["path"]: c for c in asked[0]["toolCall"]["content"] if c["type"] == "diff"}
    assert set(diffs) == {str(workspace / "calc.py"), str(workspace / "main.py")}
    assert diffs[str(workspace / "main.py")]["newText"] == SAMPLE["main.py"].replace("total", "grand_total")
    assert asked[0]["toolCall"]["kind"] == "edit"
    assert len(applied) == 1 and len(applied[0]["edit"]["documentChanges"]) == 2
    validate_updates(server)


async def test_a_declined_rename_changes_nothing(start_server: Start, workspace: Path, fake_llm: FakeLLMServer) -> None:
    server = await code_server(start_server, workspace, fake_llm)
    answer_permissions(server, "reject_once")
    applied = install_apply_edit(server)
    args = {"path": "calc.py", "line": 4, "symbol": "total", "new_name": "grand_total"}
    result = await run_one(server, workspace, fake_llm, "rename_symbol", args)
    assert "declined" in result and not applied
    assert (workspace / "main.py").read_text() == SAMPLE["main.py"]


async def test_a_rename_reaching_out_of_the_workspace_is_refused_before_asking(
    start_server: Start, workspace: Path, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    """A language server's edit may name any file; one outside the workspace (or through a link out) is refused
    whole: nobody is asked, nothing is applied, neither file changes."""
    server = await code_server(start_server, workspace, fake_llm)
    outside = tmp_path / "elsewhere.py"
    outside.write_text("total = 1\n")
    (workspace / "linked.py").symlink_to(outside)
    for target in (outside, workspace / "linked.py"):

        def rename(params: dict[str, Any], target: Path = target) -> dict[str, Any]:
            edit = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}}, "newText": "x"}
            return {"served": True, "result": {"changes": {target.as_uri(): [edit], params["uri"]: [edit]}}}

        server.handlers["agent/_code"] = rename
        asked = answer_permissions(server, "allow_once")
        applied = install_apply_edit(server)
        args = {"path": "calc.py", "line": 4, "symbol": "total", "new_name": "x"}
        result = await run_one(server, workspace, fake_llm, "rename_symbol", args)
        assert "outside the workspace" in result and not asked and not applied, result
    assert outside.read_text() == "total = 1\n" and (workspace / "calc.py").read_text() == SAMPLE["calc.py"]


async def test_an_allow_rule_for_one_file_does_not_let_a_rename_change_another(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    rules = {"tools": {"rules": [{"tool": "rename_symbol", "pattern": "calc.py", "policy": "allow"}]}}
    server = await code_server(start_server, workspace, fake_llm, **rules)
    asked = answer_permissions(server, "allow_once")
    applied = install_apply_edit(server)
    args = {"path": "calc.py", "line": 4, "symbol": "total", "new_name": "grand_total"}
    result = await run_one(server, workspace, fake_llm, "rename_symbol", args)
    assert "would also change main.py" in result and not asked and not applied, result
    assert (workspace / "calc.py").read_text() == SAMPLE["calc.py"]


async def test_places_under_a_read_deny_rule_are_named_without_their_text(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    rules = {"tools": {"rules": [{"tool": "read_file", "pattern": "main.py", "policy": "deny"}]}}
    server = await code_server(start_server, workspace, fake_llm, **rules)
    result = await run_one(server, workspace, fake_llm, "find_references", {"path": "calc.py", "line": 4})
    assert "calc.py:14: return total(self.items)" in result, result
    assert "main.py:3 (its text is not shown" in result and "é😀" not in result and "import" not in result
    refused = await run_one(server, workspace, fake_llm, "hover", {"path": "main.py", "line": 4})
    assert "main.py is not read" in refused, refused


async def test_a_broken_editor_answer_fails_the_call_and_the_server_keeps_serving(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    server = await code_server(start_server, workspace, fake_llm)
    many = [{"uri": (workspace / "calc.py").as_uri(), "range": "nonsense"}] * 100_000
    answers: list[Any] = [
        {"served": True, "result": many},  # huge and malformed: bounded, broken entries skipped
        {"served": True, "result": {"changes": {"not a uri": [{"oops": 1}]}}},  # a rename naming no file
        "garbage",  # not an answer at all: not served
    ]
    calls = [
        ("find_references", {"path": "calc.py", "line": 4}),
        ("rename_symbol", {"path": "calc.py", "line": 4, "symbol": "total", "new_name": "t2"}),
        ("find_definition", {"path": "notes.txt", "line": 1}),
    ]
    (workspace / "notes.txt").write_text("total\n")
    answer_permissions(server, "allow_once")
    for answer, (name, args) in zip(answers, calls, strict=True):
        server.handlers["agent/_code"] = lambda params, answer=answer: answer
        result = await run_one(server, workspace, fake_llm, name, args)
        assert result, name
    assert "no language server of the editor answers definition for notes.txt" in result
    assert (workspace / "calc.py").read_text() == SAMPLE["calc.py"]
