from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agent_server import acp
from agent_server.client_contract import ClientFeatures
from agent_server.tools.base import ToolContext
from tests.tools.builtin_registry import default_registry

from .conftest import RecordingClient

registry = default_registry()
SOURCE = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


@pytest.fixture
def module(workspace: Path) -> Path:
    path = workspace / "calc.py"
    path.write_text(SOURCE)
    return path


def editor(client: RecordingClient, create: bool = False) -> None:
    client.features = ClientFeatures(apply_edit=True, resource_operations=create)


async def test_edit_on_disk_keeps_mode_and_returns_a_diff(ctx: ToolContext, module: Path) -> None:
    os.chmod(module, 0o755)
    args = {"path": "calc.py", "old_text": "return a - b", "new_text": "return a - b  # subtract"}
    result = await registry.execute(ctx, "edit_file", args)
    assert not result.is_error, result.text
    assert module.read_text() == SOURCE.replace("return a - b", "return a - b  # subtract")
    assert stat.S_IMODE(module.stat().st_mode) == 0o755
    assert "line 6" in result.text
    diff = result.content[0]
    assert isinstance(diff, acp.Diff)
    assert diff.path == str(module.resolve()) and diff.old_text == SOURCE and "# subtract" in diff.new_text
    assert result.locations[0].line == 5
    assert not [p for p in module.parent.iterdir() if p.name.endswith(".tmp")]


async def test_edit_missing_text_is_a_clear_error(ctx: ToolContext, module: Path) -> None:
    result = await registry.execute(ctx, "edit_file", {"path": "calc.py", "old_text": "return a * b", "new_text": "x"})
    assert result.is_error and "old_text was not found in calc.py" in result.text
    assert module.read_text() == SOURCE


async def test_edit_ambiguous_text_says_how_many(ctx: ToolContext, module: Path) -> None:
    result = await registry.execute(ctx, "edit_file", {"path": "calc.py", "old_text": "(a, b):", "new_text": "(x, y):"})
    assert result.is_error and "occurs 2 times in calc.py" in result.text
    assert module.read_text() == SOURCE


async def test_edit_with_two_space_indentation_lands_reindented(ctx: ToolContext, module: Path) -> None:
    args = {
        "path": "calc.py",
        "old_text": "def add(a, b):\n  return a + b",
        "new_text": "def add(a, b):\n  return b + a",
    }
    result = await registry.execute(ctx, "edit_file", args)
    assert not result.is_error, result.text
    assert module.read_text() == SOURCE.replace("return a + b", "return b + a")
    assert "matched by indentation" in result.text


async def test_edit_through_the_editor_uses_the_unsaved_buffer(
    ctx: ToolContext, client: RecordingClient, module: Path
) -> None:
    editor(client)
    client.open(module, "# unsaved header 🙂\n" + SOURCE)
    args = {"path": "calc.py", "old_text": "    return a + b", "new_text": "    total = a + b\n    return total"}
    result = await registry.execute(ctx, "edit_file", args)
    assert not result.is_error, result.text
    assert len(client.edits) == 1 and client.edits[0][0] == "Edit calc.py"
    edit = client.edits[0][1][0].edits[0]
    assert (edit.start_line, edit.start_character, edit.end_line, edit.end_character) == (2, 0, 3, 0)
    # The buffer had the user's own unsaved text: saving it would save theirs too (issue 29), so the change stays
    # in the buffer and the model is told.
    assert module.read_text() == SOURCE and client.saved == []
    assert "calc.py has unsaved changes of the user in the editor, so it was not saved" in result.text


async def test_edit_through_the_editor_saves_a_buffer_without_unsaved_changes(
    ctx: ToolContext, client: RecordingClient, module: Path
) -> None:
    editor(client)
    client.open(module, SOURCE)
    args = {"path": "calc.py", "old_text": "    return a + b", "new_text": "    total = a + b\n    return total"}
    result = await registry.execute(ctx, "edit_file", args)
    assert not result.is_error, result.text
    assert module.read_text() == SOURCE.replace("    return a + b", "    total = a + b\n    return total")
    assert client.saved == [module.resolve()]  # saved, so a later command sees it


async def test_edit_at_end_of_file_without_newline(ctx: ToolContext, client: RecordingClient, workspace: Path) -> None:
    editor(client)
    (workspace / "e.txt").write_text("first\nlast 🙂 line")
    result = await registry.execute(ctx, "edit_file", {"path": "e.txt", "old_text": "line", "new_text": "row"})
    assert not result.is_error, result.text
    assert (workspace / "e.txt").read_text() == "first\nlast 🙂 row"


async def test_edit_keeps_crlf_line_endings(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = await registry.execute(ctx, "edit_file", {"path": "w.txt", "old_text": "one\ntwo", "new_text": "1\n2"})
    assert not result.is_error, result.text
    assert (workspace / "w.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_write_new_file_on_disk(ctx: ToolContext, workspace: Path) -> None:
    result = await registry.execute(ctx, "write_file", {"path": "docs/new/guide.md", "content": "# Guide\n"})
    assert not result.is_error, result.text
    assert (workspace / "docs" / "new" / "guide.md").read_text() == "# Guide\n"
    assert result.text == "Created docs/new/guide.md (1 lines)."
    diff = result.content[0]
    assert isinstance(diff, acp.Diff) and diff.old_text is None and diff.new_text == "# Guide\n"


async def test_write_existing_file_via_apply_edit_then_on_disk(
    ctx: ToolContext, client: RecordingClient, module: Path
) -> None:
    editor(client)
    result = await registry.execute(ctx, "write_file", {"path": "calc.py", "content": "print('hi')\n"})
    assert not result.is_error, result.text
    assert client.edits and client.edits[0][1][0].create is False
    assert module.read_text() == "print('hi')\n"


async def test_new_file_with_create_support_goes_through_the_editor(
    ctx: ToolContext, client: RecordingClient, workspace: Path
) -> None:
    editor(client, create=True)
    result = await registry.execute(ctx, "write_file", {"path": "pkg/mod.py", "content": "X = 1\n"})
    assert not result.is_error, result.text
    assert client.edits[0][1][0].create is True
    assert (workspace / "pkg" / "mod.py").read_text() == "X = 1\n"


async def test_new_file_without_create_support_is_written_to_disk(
    ctx: ToolContext, client: RecordingClient, workspace: Path
) -> None:
    editor(client, create=False)
    result = await registry.execute(ctx, "write_file", {"path": "mod.py", "content": "Y = 2\n"})
    assert not result.is_error, result.text
    assert client.edits == [] and (workspace / "mod.py").read_text() == "Y = 2\n"


async def test_refused_edit_is_an_error(ctx: ToolContext, client: RecordingClient, module: Path) -> None:
    editor(client)
    client.refuse = True
    result = await registry.execute(ctx, "write_file", {"path": "calc.py", "content": "x"})
    assert result.is_error and "the editor refused the edit to calc.py" in result.text
    assert "will not change that" in result.text  # a small model must not send it again and again
    assert module.read_text() == SOURCE


async def test_writes_outside_the_workspace_are_refused(ctx: ToolContext, tmp_path: Path) -> None:
    result = await registry.execute(ctx, "write_file", {"path": "../evil.txt", "content": "x"})
    assert result.is_error and "outside the workspace" in result.text
    assert not (tmp_path / "evil.txt").exists()
