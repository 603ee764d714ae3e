"""The write guard: a write that breaks a file's syntax, or replaces most of a file nobody asked to rewrite, is
refused with what the model needs to do better; real fixes land. Through the real tools (the guard sits in
editing.py, which the permission preview shares) and the judge itself."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_server.tools import syntax_check, write_guard
from agent_server.tools.base import ToolContext
from agent_server.tools.syntax_check import Parsed, ParseError
from agent_server.tools.write_guard import judge
from tests.tools.builtin_registry import default_registry

registry = default_registry()

MODULE = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(100))  # 400 lines, 200 non-blank
README = "# Project\n\n" + "".join(f"Line {i} of the documentation.\n" for i in range(60))


# --- rule 1: syntax -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "good", "bad", "line"),
    [
        ("a.py", "def f(x):\n    return x\n", "def f(x)\n    return x\n", 1),
        ("a.json", '{"a": 1,\n "b": 2}\n', '{"a": 1,\n "b": 2,\n}\n', 3),
        ("a.toml", '[tool]\nname = "x"\n', '[tool]\nname = "x\n', 2),
        ("a.yaml", "a:\n  - 1\n  - 2\n", "a:\n  - 1\n  - [2\n", 4),
        ("a.js", "function f(x) {\n  return x;\n}\n", "function f(x) {\n  return x;\n\n", 2),
        ("a.ts", "export const f = (x: number): number => x;\n", "export const f = (x: number): number => ;\n", 1),
        ("a.go", "package a\n\nfunc F() int {\n\treturn 1\n}\n", "package a\n\nfunc F() int {\n\treturn 1\n", 5),
        ("a.rs", "fn f() -> i32 {\n    1\n}\n", "fn f() -> i32 {\n    1\n", 1),
    ],
)
def test_a_write_that_breaks_a_file_is_refused_with_the_parser_s_line(
    path: str, good: str, bad: str, line: int
) -> None:
    verdict = judge(path, good, bad)
    assert verdict.refused == "syntax"
    assert verdict.problem is not None and verdict.problem.line == line, verdict.problem
    assert f"line {line}" in verdict.reason and "Nothing was written" in verdict.reason
    assert judge(path, good, good + "\n").refused is None


def test_a_new_file_that_does_not_parse_is_refused_and_one_that_did_not_parse_before_is_not_judged() -> None:
    assert judge("new.py", None, "def f(:\n").refused == "syntax"
    assert judge("new.py", None, "def f():\n    pass\n").refused is None
    assert judge("broken.py", "def f(:\n", "def g(:\n").refused is None  # not this write's doing


def test_files_without_a_parser_or_too_big_are_not_judged_by_syntax() -> None:
    assert judge("notes.md", "# a\n", "```\nunclosed\n").refused is None
    assert judge("main.c", "int main() { return 0; }\n", "int main( {\n").refused is None  # tree-sitter C misreads
    assert judge("tsconfig.json", "{}\n", "{\n  // a comment\n}\n").refused is None  # JSON with comments
    big = "x = 1\n" * (syntax_check.MAX_BYTES["python"] // 6 + 1)
    assert syntax_check.check("big.py", big + "def (:\n") is None


def test_the_error_names_the_line_the_model_wrote() -> None:
    problem = syntax_check.check("a.py", "x = 1\nif x\n    y = 2\n")
    assert isinstance(problem, ParseError)
    assert problem.line == 2 and "expected ':'" in problem.message and "`if x`" in problem.message
    problem = syntax_check.check("a.js", "const a = 1;\nconst b = (2;\n")
    assert isinstance(problem, ParseError) and problem.line == 2 and problem.language == "JavaScript"


def test_a_yaml_alias_bomb_is_parsed_without_expanding_it() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(20)
    )
    assert isinstance(syntax_check.check("bomb.yaml", bomb), Parsed)


def test_a_byte_order_mark_is_no_syntax_error() -> None:
    assert isinstance(syntax_check.check("a.py", "\ufeffx = 1\n"), Parsed)
    assert isinstance(syntax_check.check("a.json", '\ufeff{"a": 1}'), Parsed)


# --- rule 2: wholesale replacement ----------------------------------------------------------------------------------


def test_a_whole_file_answer_that_changes_one_line_lands() -> None:
    fixed = MODULE.replace("return x + 57\n", "return x - 57\n")
    assert judge("mod.py", MODULE, fixed, "Fix f57 in mod.py").refused is None


def test_replacing_most_of_a_file_nobody_asked_to_rewrite_is_refused_saying_what_was_kept() -> None:
    verdict = judge("README.md", README, "# Calc\n\nA calculator.\n", "Fix the bug in calc/ops.py: add subtracts")
    assert verdict.refused == "wholesale"
    assert (verdict.kept, verdict.total) == (0, 61)
    assert "keeps 0 of its 61 lines" in verdict.reason
    assert "edit_file" in verdict.reason and "SEARCH/REPLACE" in verdict.reason
    half = MODULE[: len(MODULE) // 3]  # a re-typed module cut short
    assert judge("mod.py", MODULE, half, "fix f57").refused == "wholesale"


@pytest.mark.parametrize(
    "request_text",
    [
        "Rewrite README.md for the new API",
        "Please replace the README with a short one",
        "convert mod.py to a class",
        "Rewrite `docs/README.md` from scratch",
    ],
)
def test_a_request_to_rewrite_the_file_allows_it(request_text: str) -> None:
    path = "docs/README.md" if "docs/" in request_text else "README.md"
    path = "mod.py" if "mod.py" in request_text else path
    old = MODULE if path == "mod.py" else README
    assert judge(path, old, "# New\n", request_text).refused is None


@pytest.mark.parametrize(
    "request_text",
    [
        "Fix the bug in calc.py",  # names another file
        "Rewrite calc.py",  # a rewrite of another file
        "Update README.md with the new option",  # names the file, asks no rewrite
        "Fix this:\n```\n# rewrite README.md\n```",  # the words are in pasted code, not the user's
        "",
    ],
)
def test_other_requests_do_not(request_text: str) -> None:
    assert judge("README.md", README, "# New\n", request_text).refused == "wholesale"


def test_small_files_and_files_created_this_turn_are_not_judged_by_size() -> None:
    small = "".join(f"line {i}\n" for i in range(29))
    assert judge("notes.txt", small, "other\n").refused is None
    assert judge("README.md", README, "# New\n", created=True).refused is None


def test_moved_or_reindented_lines_are_kept() -> None:
    functions = MODULE.split("\n\n\n")
    moved = "class Funcs:\n" + "".join("    " + line + "\n" for f in functions[::-1] for line in f.splitlines())
    assert judge("mod.py", MODULE, moved).refused is None


# --- through the tools ----------------------------------------------------------------------------------------------


async def test_write_file_refuses_a_broken_module_and_leaves_it(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "mod.py").write_text(MODULE)
    broken = MODULE.replace("def f57(x):", "def f57(x)")
    result = await registry.execute(ctx, "write_file", {"path": "mod.py", "content": broken})
    assert result.is_error and "line 229" in result.text and "no longer parse as Python" in result.text
    assert (workspace / "mod.py").read_text() == MODULE
    fixed = MODULE.replace("return x + 57", "return x - 57")
    result = await registry.execute(ctx, "write_file", {"path": "mod.py", "content": fixed})
    assert not result.is_error and (workspace / "mod.py").read_text() == fixed


async def test_edit_file_is_judged_on_the_file_it_leaves(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "mod.py").write_text(MODULE)
    args = {"path": "mod.py", "old_text": "def f3(x):\n    return x + 3", "new_text": "def f3(x):\n    return (x + 3"}
    result = await registry.execute(ctx, "edit_file", args)
    assert result.is_error and "no longer parse" in result.text and "line 14" in result.text
    assert (workspace / "mod.py").read_text() == MODULE


async def test_a_file_the_turn_created_may_be_rewritten_by_it(ctx: ToolContext, workspace: Path) -> None:
    async def turn() -> list[bool]:
        write_guard.begin_turn("Add docs/guide.md")
        first = await registry.execute(ctx, "write_file", {"path": "docs/guide.md", "content": README})
        second = await registry.execute(ctx, "write_file", {"path": "docs/guide.md", "content": "# Short\n"})
        return [first.is_error, second.is_error]

    assert await asyncio.create_task(turn()) == [False, False]
    (workspace / "docs" / "other.md").write_text(README)  # not created by that turn, and this is another one
    result = await registry.execute(ctx, "write_file", {"path": "docs/other.md", "content": "# Short\n"})
    assert result.is_error and "keeps 0 of its 61 lines" in result.text
