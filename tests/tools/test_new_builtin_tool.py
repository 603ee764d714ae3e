"""A new built-in tool is one definition and one line in `tools/builtin.py`'s BUILTINS (issue 39): here a toy tool,
registered that way and nothing else, is offered with the schema derived from its argument model (full and lean, at
its lean rank), refuses bad arguments with the same clear errors, shows its own preview in the permission request,
is judged by the policy on its path (rules, protected paths) with its own default, counts as a change in the
hot-context note, a profile, workspace trust and the notes compaction keeps, all in a real turn (in process, against a ScriptedProvider)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import Field

from agent_server import acp
from agent_server.agents.profile import Profile, ProfileSpec
from agent_server.config import Settings
from agent_server.context.notes import SessionNotes
from agent_server.llm.scripted import ScriptedProvider, call
from agent_server.messages import Message, ToolCall
from agent_server.tools.base import LeanForm, ToolContext, ToolResult
from agent_server.tools.builtin import BUILTINS, builtin_tools
from agent_server.tools.definition import BuiltinTool, ToolArgs, lean_object, path_location
from agent_server.tools.editing import EditFile, atomic_write
from agent_server.tools.kinds import call_roles
from agent_server.tools.names import BUILTIN_TOOL_NAMES
from agent_server.tools.preview import Preview, diff_preview
from agent_server.tools.sandbox import relative, resolve
from agent_server.trust import risky_keys
from tests.turn.inprocess import RecordingClient, run, scripted_service


class ShoutArgs(ToolArgs):
    path: str
    """The file to shout, relative to the workspace."""
    marks: int | None = Field(default=None, ge=1, le=3)
    """How many exclamation marks to end it with (default 1)."""


class ShoutFile(BuiltinTool[ShoutArgs]):
    """The toy: upper-cases a file of the workspace. Everything the server knows of it is here."""

    name = "shout_file"
    description = "Upper-case a whole file and end it with exclamation marks."
    args = ShoutArgs
    kind = "edit"
    policy = "ask"
    touches = "writes"
    lean = LeanForm("Upper-case a file.", lean_object(["path"]), 55)

    def title(self, args: dict[str, Any]) -> str:
        return f"Shout {args['path']}"

    def locations(self, ctx: ToolContext, args: dict[str, Any]) -> list[acp.ToolCallLocation]:
        return path_location(ctx, args)

    def _change(self, ctx: ToolContext, args: ShoutArgs) -> tuple[Path, str, str]:
        path = resolve(ctx.roots, args.path, must_exist=True)
        old = path.read_text()
        return path, old, old.upper().rstrip("\n") + "!" * (args.marks or 1) + "\n"

    async def preview(self, ctx: ToolContext, args: ShoutArgs) -> Preview:
        return diff_preview(*self._change(ctx, args))

    async def run(self, ctx: ToolContext, args: ShoutArgs) -> ToolResult:
        path, _, new = self._change(ctx, args)
        atomic_write(path, new)
        return ToolResult(text=f"Shouted {relative(ctx.roots, path)}.")


class CountLinesArgs(ToolArgs):
    path: str
    """The file, relative to the workspace."""


class CountLines(BuiltinTool[CountLinesArgs]):
    """A second toy, one that only looks: allowed by default."""

    name = "count_lines"
    description = "Count a file's lines."
    args = CountLinesArgs
    kind = "read"
    policy = "allow"

    async def run(self, ctx: ToolContext, args: CountLinesArgs) -> ToolResult:
        path = resolve(ctx.roots, args.path, must_exist=True)
        return ToolResult(text=f"{len(path.read_text().splitlines())} lines")


@contextmanager
def registered(definition: type[BuiltinTool[Any]] = ShoutFile) -> Iterator[None]:
    """The one registration line (here after edit_file, where a real one would be listed), undone afterwards."""
    BUILTINS.insert(BUILTINS.index(EditFile) + 1, definition)
    try:
        yield
    finally:
        BUILTINS.remove(definition)


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.txt").write_text("hello\n")
    (ws / "notes.txt").write_text("quiet\n")
    return ws


def offered(provider: ScriptedProvider, index: int = 0) -> dict[str, Any]:
    return {t.name: {"description": t.description, "parameters": t.parameters} for t in provider.requests[index].tools}


async def test_registered_it_is_offered_with_its_derived_schema_and_asked_about_with_its_preview(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path)
    provider = ScriptedProvider(
        call("shout_file", path="notes.txt", marks=2), "Done.", call("read_file", path="notes.txt"), "It is loud."
    )
    client = RecordingClient()
    full = {"edit_format": "tools", "lean_prompt": "off", "hot_context_tokens": 200}
    with registered():
        async with scripted_service(ws, provider, client, agent=full) as service:
            session = await service.new_session(str(ws))
            await service.prompt(session.id, [acp.TextContent(text="Shout notes.txt")], client)
            await service.prompt(session.id, [acp.TextContent(text="What does it say now?")], client)
    tools = offered(provider)
    assert list(tools)[5:8] == ["write_file", "edit_file", "shout_file"]  # where its registration line put it
    assert json.dumps(tools["shout_file"]) == json.dumps(
        {
            "description": "Upper-case a whole file and end it with exclamation marks.",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "The file to shout, relative to the workspace."},
                    "marks": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 3,
                        "description": "How many exclamation marks to end it with (default 1).",
                    },
                },
                "required": ["path"],
                "additionalProperties": False,
            },
        }
    )
    (asked,) = client.asked  # its default policy asks
    assert asked.title == "Shout notes.txt" and asked.kind == "edit"
    diff = next(c for c in asked.content or [] if isinstance(c, acp.Diff))
    assert (diff.old_text, diff.new_text) == ("quiet\n", "QUIET!!\n")  # its own preview, a diff the editor can review
    assert asked.meta is not None and "review" in asked.meta
    assert (ws / "notes.txt").read_text() == "QUIET!!\n"
    # The next turn's note names the file it changed: its `touches` put it among the tools that write.
    assert "Files changed in this session: notes.txt" in provider.requests[2].messages[-1].content


async def test_its_lean_form_is_offered_at_its_rank(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    provider = ScriptedProvider("Hi.")
    client = RecordingClient()
    with registered():
        async with scripted_service(ws, provider, client, agent={"edit_format": "tools", "lean_prompt": "on"}) as svc:
            await run(svc, client, ws, "Hello")
    tools = offered(provider)
    assert list(tools)[:7] == [
        "read_file", "list_directory", "find_files", "search_text", "edit_file", "shout_file", "write_file",
    ]  # fmt: skip
    assert tools["shout_file"] == {
        "description": "Upper-case a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    }


async def test_bad_arguments_get_the_clear_errors_of_its_schema(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    provider = ScriptedProvider(
        [call("shout_file", id="c1", path="notes.txt", marks=9), call("shout_file", id="c2", file="notes.txt")],
        "Sorry.",
    )
    client = RecordingClient()
    with registered():
        async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
            await run(service, client, ws, "Shout notes.txt")
    assert client.tool_results() == [
        "Error: invalid arguments for shout_file: field 'marks': 9 is greater than the maximum of 3",
        "Error: invalid arguments for shout_file: missing required field 'path'",
    ]
    assert client.asked == [] and (ws / "notes.txt").read_text() == "quiet\n"


async def test_the_policy_judges_it_on_its_path(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    (ws / ".vscode").mkdir()
    (ws / ".vscode" / "tasks.json").write_text("{}\n")
    provider = ScriptedProvider(
        [call("shout_file", id="c1", path="src/a.txt"), call("shout_file", id="c2", path=".vscode/tasks.json")],
        "Done.",
    )
    client = RecordingClient()
    rules = [{"tool": "shout_file", "pattern": "*", "policy": "allow"}]
    with registered():
        async with scripted_service(
            ws, provider, client, agent={"edit_format": "tools"}, tools={"rules": rules}
        ) as svc:
            await run(svc, client, ws, "Shout them")
    assert (ws / "src" / "a.txt").read_text() == "HELLO!\n"  # allowed by the rule: not asked
    # A path that could make a program run is asked about whatever the rules say: it is a tool that edits.
    assert [a.title for a in client.asked] == ["Shout .vscode/tasks.json"]


def test_profiles_see_what_it_does() -> None:
    spec = ProfileSpec(name="shouter", tools=["read_file", "shout_*"])
    assert Profile(spec, "", "user").read_only  # not registered: no tool of that name changes anything
    with registered():
        assert not Profile(spec, "", "user").read_only  # a tool that edits: the profile is not read-only
        assert "shout_file" in {t.name for t in builtin_tools()}


def test_the_notes_of_evicted_turns_count_its_calls_as_changes() -> None:
    """Compaction's notes say which files were modified; a tool of kind edit is one, whatever its name says."""
    shout = [Message("assistant", "", tool_calls=[ToolCall("c1", "shout_file", {"path": "src/a.txt"})])]
    with registered():
        notes = SessionNotes()
        notes.add(shout, call_roles(builtin_tools()))  # what a turn passes to its compaction
    assert (notes.files_modified, notes.files_read) == (["src/a.txt"], [])


def test_workspace_trust_reads_its_default_policy() -> None:
    layer = {"tools": {"policy": {"count_lines": "allow"}}}
    # Unknown, a tool is taken to ask by default: allowing it in a workspace file would loosen the policy.
    assert [k.why for k in risky_keys(layer, Settings())] == ["loosens the policy (ask -> allow)"]
    with registered(CountLines):
        assert risky_keys(layer, Settings()) == []  # its definition allows it already: nothing is loosened


def test_every_builtin_tool_name_is_listed_for_the_settings_check() -> None:
    """names.py is the import-free list the settings check rule names against; it names every defined tool."""
    from agent_server.tools.builtin import kinds

    assert set(kinds()) <= BUILTIN_TOOL_NAMES
    assert BUILTIN_TOOL_NAMES - set(kinds()) == {"load_skill", "remember"}  # defined above the tools floor
