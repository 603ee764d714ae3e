"""A Python answer that is part of a file, merged into the file instead of replacing it.

Asked for "the whole new content", a small model often sends only the function it changed: the code it needs from
the rest of the file (an import, a constant, the other functions) is missing from its block. Written as the whole
file, that loses the rest and breaks code that worked. A block is an excerpt when it uses a name the file defines
at its top level but the block does not (its code would not run alone), or when it only rewrites some of the
file's functions and classes and adds none; unless the request asks to remove something, where a shorter file is
the point. An excerpt replaces the file's definitions of the same names, adds its new imports after the file's,
adds its new definitions at the end, and keeps everything else. A complete answer is written as it is.
"""

from __future__ import annotations

import ast
import builtins

from .code_names import node_names, top_level_names

BUILTINS = set(dir(builtins)) | {"__name__", "__file__", "__doc__"}


def merged(original: str, block: str, may_remove: bool) -> str | None:
    """The file with the excerpt `block` merged in; None when `block` is the whole file (or either does not parse,
    or nests deeper than Python's recursion limit lets `ast` build or compare it: the block is the model's)."""
    try:
        old_tree, new_tree = ast.parse(original), ast.parse(block)
        if not _is_excerpt(old_tree, new_tree, may_remove):
            return None
        return _merge(original, old_tree, block, new_tree)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _is_excerpt(old: ast.Module, new: ast.Module, may_remove: bool) -> bool:
    old_names, new_names = top_level_names(old), top_level_names(new)
    if (_used(new) - _bound(new) - BUILTINS) & (old_names | _imported(old)):
        return True  # it would not run alone: the rest of the file is missing
    defs_old = {n for node in old.body if _is_def(node) for n in node_names(node)}
    defs_new = {n for node in new.body if _is_def(node) for n in node_names(node)}
    return not may_remove and bool(defs_new) and defs_new < defs_old and new_names <= old_names | _imported(new)


def _merge(original: str, old: ast.Module, block: str, new: ast.Module) -> str:
    lines = original.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    block_lines = block.splitlines(keepends=True)
    by_name = {name: node for node in old.body for name in node_names(node)}
    old_dumps = {ast.dump(node) for node in old.body}
    replaced: list[tuple[int, int, list[str]]] = []  # (start, end) of an old node, 0-based, end exclusive
    imports: list[str] = []
    appended: list[str] = []
    for node in new.body:
        source = block_lines[_start(node, block_lines) : node.end_lineno or node.lineno]
        if ast.dump(node) in old_dumps:
            continue  # the same statement as in the file
        names = node_names(node)
        target = next((by_name[n] for n in names if n in by_name), None)
        if target is not None and not any(s <= target.lineno - 1 < e for s, e, _ in replaced):
            replaced.append((_start(target, lines), target.end_lineno or target.lineno, source))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            imports += source
        else:
            appended += ["\n", "\n", *source] if _is_def(node) else ["\n", *source]
    for start, end, source in sorted(replaced, reverse=True):
        lines[start:end] = source
    if imports:
        at = _after_imports(old)
        lines[at:at] = imports
    if appended:
        while lines and not lines[-1].strip():
            lines.pop()
        lines += appended
    text = "".join(lines)
    return text if text.endswith("\n") else text + "\n"


def _start(node: ast.stmt, lines: list[str]) -> int:
    """Where a statement starts, 0-based: its decorators and the comment lines right above it included."""
    decorators: list[ast.expr] = (
        node.decorator_list if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) else []
    )
    first = min([node.lineno, *(d.lineno for d in decorators)]) - 1
    while first > 0 and lines[first - 1].lstrip().startswith("#") and not lines[first - 1].startswith("#!"):
        first -= 1
    return first


def _after_imports(old: ast.Module) -> int:
    """The line after the file's last top-level import (after its docstring when it has none)."""
    ends = [node.end_lineno or node.lineno for node in old.body if isinstance(node, ast.Import | ast.ImportFrom)]
    if ends:
        return max(ends)
    body = old.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        return body[0].end_lineno or 0
    return 0


def _is_def(node: ast.stmt) -> bool:
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)


def _used(tree: ast.Module) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _bound(tree: ast.Module) -> set[str]:
    """Every name the block binds anywhere (assignments, parameters, definitions, imports, loop and with targets)."""
    names: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            names.add(n.id)
        elif isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(n.name)
        elif isinstance(n, ast.alias):
            names.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
    return names


def _imported(tree: ast.Module) -> set[str]:
    return {
        (alias.asname or alias.name).split(".")[0]
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
