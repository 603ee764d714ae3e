from __future__ import annotations

from pathlib import Path

import pytest

from agent_server.tools.base import ToolContext
from tests.tools.builtin_registry import default_registry

registry = default_registry()


@pytest.fixture
def tree(workspace: Path) -> Path:
    files = {
        "src/app.py": "def main():\n    return helper()\n",
        "src/util/helper.py": "def helper():\n    return 42  # TODO tidy\n",
        "tests/test_app.py": "from src.app import main\n\ndef test_main():\n    assert main() == 42\n",
        "README.md": "TODO: write docs\n",
        "node_modules/pkg/index.js": "// TODO vendored\n",
        "build/out.py": "def main(): pass  # TODO generated\n",
        ".gitignore": "build/\n",
    }
    for rel, text in files.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text)
    (workspace / "src" / "blob.bin").write_bytes(b"TODO\x00\x01\x02")
    return workspace


async def test_find_files_by_name_at_any_depth(ctx: ToolContext, tree: Path) -> None:
    result = await registry.execute(ctx, "find_files", {"pattern": "*.py"})
    assert result.text.splitlines()[1:] == ["src/app.py", "src/util/helper.py", "tests/test_app.py"]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("src/*.py", ["src/app.py"]),
        ("src/**/*.py", ["src/app.py", "src/util/helper.py"]),
        ("**/test_*.py", ["tests/test_app.py"]),
        ("*.{md,py}", ["README.md", "src/app.py", "src/util/helper.py", "tests/test_app.py"]),
    ],
)
async def test_find_files_glob_semantics(ctx: ToolContext, tree: Path, pattern: str, expected: list[str]) -> None:
    result = await registry.execute(ctx, "find_files", {"pattern": pattern})
    assert result.text.splitlines()[1:] == expected


async def test_find_files_no_match(ctx: ToolContext, tree: Path) -> None:
    result = await registry.execute(ctx, "find_files", {"pattern": "*.rs"})
    assert result.text == "No files match '*.rs'." and not result.is_error


async def test_search_text_reports_path_line_text(ctx: ToolContext, tree: Path) -> None:
    result = await registry.execute(ctx, "search_text", {"pattern": r"TODO"})
    lines = result.text.splitlines()
    assert lines[0] == "2 matches in 2 files:"
    assert lines[1:] == ["README.md:1: TODO: write docs", "src/util/helper.py:2: return 42  # TODO tidy"]


async def test_search_text_filters_by_path_and_glob(ctx: ToolContext, tree: Path) -> None:
    in_tests = await registry.execute(ctx, "search_text", {"pattern": r"\bmain\(\)", "path": "tests"})
    assert in_tests.text.splitlines()[1:] == ["tests/test_app.py:4: assert main() == 42"]
    md_only = await registry.execute(ctx, "search_text", {"pattern": "(?i)todo", "glob": "*.md"})
    assert md_only.text.splitlines()[1:] == ["README.md:1: TODO: write docs"]


async def test_search_text_bad_regex_and_escape(ctx: ToolContext, tree: Path) -> None:
    bad = await registry.execute(ctx, "search_text", {"pattern": "foo("})
    assert bad.is_error and "invalid regular expression 'foo('" in bad.text
    escape = await registry.execute(ctx, "search_text", {"pattern": "root", "path": "/etc"})
    assert escape.is_error and "outside the workspace" in escape.text


async def test_searches_do_not_follow_symlinks_out_of_the_workspace(
    ctx: ToolContext, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("AWS_SECRET=hunter2\n")
    (workspace / "notes.txt").symlink_to(outside / "secret.txt")
    (workspace / "inner.txt").write_text("AWS_SECRET=fake\n")
    (workspace / "alias.txt").symlink_to(workspace / "inner.txt")
    found = await registry.execute(ctx, "search_text", {"pattern": "AWS_SECRET"})
    assert "hunter2" not in found.text and "notes.txt" not in found.text
    assert found.text.startswith("2 matches in 2 files")  # inner.txt, and alias.txt: links that stay inside work
    listed = await registry.execute(ctx, "find_files", {"pattern": "*.txt"})
    assert "notes.txt" not in listed.text and "inner.txt" in listed.text
