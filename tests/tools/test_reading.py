from __future__ import annotations

from pathlib import Path

import pytest

from agent_server.tools.base import ToolContext
from agent_server.tools.reading import HUGE_BYTES
from tests.tools.builtin_registry import default_registry

from .conftest import RecordingClient

registry = default_registry()


@pytest.fixture
def app(workspace: Path) -> Path:
    (workspace / "src").mkdir()
    path = workspace / "src" / "app.py"
    path.write_text("".join(f"line {n}\n" for n in range(1, 51)))
    return path


async def test_read_whole_file_with_line_numbers(ctx: ToolContext, app: Path) -> None:
    result = await registry.execute(ctx, "read_file", {"path": "src/app.py"})
    assert not result.is_error
    assert result.text.startswith("src/app.py (lines 1-50 of 50)")
    assert "\n1\tline 1\n" in result.text and result.text.endswith("50\tline 50")


async def test_read_a_range(ctx: ToolContext, app: Path) -> None:
    result = await registry.execute(ctx, "read_file", {"path": "src/app.py", "start_line": 10, "end_line": 12})
    assert result.text == "src/app.py (lines 10-12 of 50)\n10\tline 10\n11\tline 11\n12\tline 12"
    assert result.locations[0].path == str(app.resolve()) and result.locations[0].line == 9
    clamped = await registry.execute(ctx, "read_file", {"path": "src/app.py", "start_line": 49, "end_line": 99})
    assert clamped.text.startswith("src/app.py (lines 49-50 of 50)")


async def test_bad_ranges_are_clear(ctx: ToolContext, app: Path) -> None:
    past = await registry.execute(ctx, "read_file", {"path": "src/app.py", "start_line": 80})
    assert past.is_error and "past the end of src/app.py, which has 50 lines" in past.text
    backwards = await registry.execute(ctx, "read_file", {"path": "src/app.py", "start_line": 9, "end_line": 3})
    assert backwards.is_error and "before start_line" in backwards.text
    zero = await registry.execute(ctx, "read_file", {"path": "src/app.py", "start_line": 0})
    assert zero.is_error and "start_line" in zero.text


async def test_unsaved_buffer_wins(ctx: ToolContext, client: RecordingClient, app: Path) -> None:
    client.open(app, "edited in the editor\nnot saved yet\n")
    result = await registry.execute(ctx, "read_file", {"path": "src/app.py"})
    assert "unsaved editor buffer" in result.text
    assert "1\tedited in the editor" in result.text and "line 1" not in result.text


async def test_binary_file_gets_a_summary(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 10)
    result = await registry.execute(ctx, "read_file", {"path": "logo.png"})
    assert not result.is_error
    assert "binary file (PNG image, 2.5 KB)" in result.text
    assert "\x00" not in result.text


async def test_huge_file_gets_a_summary_and_ranges_still_work(ctx: ToolContext, workspace: Path) -> None:
    lines = [f"record {n:07d} " + "z" * 40 for n in range(1, HUGE_BYTES // 40)]
    (workspace / "big.log").write_text("\n".join(lines) + "\n")
    summary = await registry.execute(ctx, "read_file", {"path": "big.log"})
    assert f"about {len(lines)} lines" in summary.text and "huge text file" in summary.text
    assert "record 0000001" in summary.text and "record 0000100" not in summary.text
    part = await registry.execute(ctx, "read_file", {"path": "big.log", "start_line": 5000, "end_line": 5001})
    assert part.text.splitlines()[1:] == [f"5000\t{lines[4999]}", f"5001\t{lines[5000]}"]


async def test_read_refuses_directories_and_escapes(ctx: ToolContext, app: Path) -> None:
    folder = await registry.execute(ctx, "read_file", {"path": "src"})
    assert folder.is_error and "use list_directory" in folder.text
    escape = await registry.execute(ctx, "read_file", {"path": "../../etc/passwd"})
    assert escape.is_error and "outside the workspace" in escape.text
    missing = await registry.execute(ctx, "read_file", {"path": "nope.py"})
    assert missing.is_error and "no such file" in missing.text


async def test_list_directory_marks_folders_and_hides_ignored(ctx: ToolContext, workspace: Path) -> None:
    (workspace / ".git").mkdir()
    (workspace / "node_modules").mkdir()
    (workspace / "build").mkdir()
    (workspace / "src").mkdir()
    (workspace / "README.md").write_text("hi")
    (workspace / "debug.log").write_text("noise")
    (workspace / ".gitignore").write_text("build/\n*.log\n")
    result = await registry.execute(ctx, "list_directory", {"path": "."})
    body = result.text.splitlines()[1:]
    assert body[:3] == [".gitignore", "README.md", "src/"]
    assert "4 ignored entries hidden" in result.text
    for hidden in (".git/", "node_modules/", "build/", "debug.log"):
        assert hidden not in body
    file_instead = await registry.execute(ctx, "list_directory", {"path": "README.md"})
    assert file_instead.is_error and "use read_file" in file_instead.text
