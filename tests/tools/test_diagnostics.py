"""What counts as an error an edit introduced: new, or more frequent than before; lines may move."""

from __future__ import annotations

from pathlib import Path

from agent_server.client_contract import Diagnostic
from agent_server.config import ToolsConfig
from agent_server.tools.diagnostics import (
    introduced,
    introduced_lines,
    lint_command,
    render_diagnostics,
)


def d(line: int, message: str, severity: int = 1, code: str | None = "E1") -> Diagnostic:
    return Diagnostic(line=line, character=4, message=message, severity=severity, source="Pyright", code=code)


def test_moved_errors_are_not_new_and_a_second_copy_is() -> None:
    before = [d(3, "x is not defined"), d(9, "bad return")]
    after = [d(5, "x is not defined"), d(11, "bad return"), d(12, "x is not defined"), d(1, "unused", severity=2)]
    assert introduced(before, after) == [d(12, "x is not defined")]  # warnings never count


def test_render_is_compact_and_capped() -> None:
    items = [d(i, f"problem {i}") for i in range(7)]
    text = render_diagnostics("a.py", items)
    assert text.startswith("\n\nThe editor reports 7 new errors after this change; fix them:\n")
    assert "a.py:1:5: problem 0 [Pyright (E1)]" in text and "problem 5" not in text and "... and 2 more" in text
    assert render_diagnostics("a.py", []) == ""


def test_linter_lines_compare_without_positions() -> None:
    before = "a.py:3:1: F401 `os` imported but unused\n"
    after = "a.py:5:1: F401 `os` imported but unused\na.py:9:12: F821 Undefined name `offset`\nFound 2 errors.\n"
    assert introduced_lines(before, after) == ["a.py:9:12: F821 Undefined name `offset`", "Found 2 errors."]


def test_lint_command_by_language_or_extension_with_the_file_quoted() -> None:
    tools = ToolsConfig(lint={"python": "ruff check {file}", ".rb": "rubocop {file}"})
    assert lint_command(tools, Path("/w/my file.py"), "src/my file.py") == "ruff check 'src/my file.py'"
    assert lint_command(tools, Path("/w/x.rb"), "x.rb") == "rubocop x.rb"
    assert lint_command(tools, Path("/w/x.go"), "x.go") is None
