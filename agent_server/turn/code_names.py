"""The names a piece of code defines at its top level, to tell which shown file a code block without a path is.

Python is parsed (functions, classes, assigned names); a block that does not parse, and other languages, are read
with a line pattern for the common definition keywords. Names only: this decides where a block goes, never what it
does, and a block whose names match no file, or two files equally, goes nowhere.
"""

from __future__ import annotations

import ast
import re

DEFINITION = re.compile(
    r"^(?:export\s+)?(?:default\s+)?(?:pub\s+)?(?:async\s+)?"
    r"(?:def|class|function|func|fn|struct|enum|interface|type|const|let|var|local\s+function)\s+(?P<name>\w+)"
    r"|^(?P<assigned>[A-Za-z_]\w*)\s*(?::[^=\n]+)?=(?!=)",
    re.M,
)


def defined_names(text: str, python: bool) -> set[str]:
    """The names `text` defines at its top level (test functions included: that is how an echoed test is known)."""
    if python:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):  # nested past the recursion limit: read as other code
            pass
        else:
            return top_level_names(tree)
    return {m.group("name") or m.group("assigned") for m in DEFINITION.finditer(text)}


def top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        names.update(node_names(node))
    return names


def node_names(node: ast.stmt) -> set[str]:
    """The names one top-level statement defines (a def, a class, an assignment to plain names)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    return set()


def best_match(block_names: set[str], candidates: dict[str, set[str]]) -> str | None:
    """The one candidate that defines the most of the block's names; None when none does or two tie."""
    scores = sorted(((len(block_names & names), path) for path, names in candidates.items()), reverse=True)
    if not scores or scores[0][0] == 0 or (len(scores) > 1 and scores[1][0] == scores[0][0]):
        return None
    return scores[0][1]
