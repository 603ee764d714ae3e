"""The workspace modules a test file imports: the code a failing test exercises.

`from pkg.mod import f`, `from pkg import mod`, `import pkg.mod` resolve to `pkg/mod.py` or `pkg/mod/__init__.py`,
in a flat layout or under `src/` (the src layout a packaged library uses). A name a package's `__init__.py` only
re-exports (`from .core import f`) resolves to the module that defines it, one level deep. The names the failing
test uses (the function a node id names, else the whole file) say which of a module's functions matter: a long
module is shown in part around them.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SandboxError
from ..tools.sandbox import read_regular
from .traceback_files import is_workspace_file

MAX_SOURCE = 1_000_000  # bytes of a test file or package __init__ read to find its imports
LAYOUTS = ("", "src/")
PY_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(?P<from>[\w.]+)[ \t]+import|import[ \t]+(?P<import>[\w.]+))", re.M)


@dataclass
class Imported:
    """A workspace module a test imports: the names of it the failing test uses, and every name that test uses
    (`store.remove(...)` names `remove`, a method of a class it imported: where a long module is shown)."""

    path: str
    names: set[str] = field(default_factory=set)
    used: set[str] = field(default_factory=set)


def imported_modules(test_paths: list[str], root: Path, tests: dict[str, set[str]] | None = None) -> list[Imported]:
    """The workspace modules the test files at `test_paths` import (absolute imports), those whose names the failing
    tests use first. `tests` maps a test file to the test functions that failed in it (from node ids, frames)."""
    resolver = _Resolver(root)
    found: dict[str, Imported] = {}
    for test_path in test_paths:
        if not test_path.endswith(".py"):
            continue
        tree = resolver.parse(test_path)
        if tree is None:
            for module in resolver.regex_imports(test_path):
                found.setdefault(module, Imported(module))
            continue
        used = _used_names(tree, (tests or {}).get(test_path, set()))
        for module, names in resolver.imports(tree, used):
            entry = found.setdefault(module, Imported(module))
            entry.names |= names & used if used else names
            entry.used |= used
    return sorted(found.values(), key=lambda m: not m.names)


class _Resolver:
    """Module lookups in one workspace, each file parsed once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.trees: dict[str, ast.Module | None] = {}

    def imports(self, tree: ast.Module, used: set[str]) -> list[tuple[str, set[str]]]:
        """(module path, names imported from it) for each absolute import that resolves to a workspace module; for
        `import pkg`, the modules its `__init__` takes the names the test uses (`pkg.f`) from, too."""
        out: list[tuple[str, set[str]]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    path = self.module_path(alias.name)
                    if path is None:
                        continue
                    if path.endswith("__init__.py"):
                        out += [(d, {n}) for n in sorted(used) if (d := self.reexported(path, n))]
                    out.append((path, set()))
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                out += self.from_import(node.module, [a.name for a in node.names])
        return out

    def from_import(self, module: str, names: list[str]) -> list[tuple[str, set[str]]]:
        out: list[tuple[str, set[str]]] = []
        base = self.module_path(module)
        for name in names:
            sub = self.module_path(f"{module}.{name}")
            if sub is not None:  # `from pkg import mod`: the module itself
                out.append((sub, set()))
            elif base is not None and base.endswith("__init__.py") and (defining := self.reexported(base, name)):
                out.append((defining, {name}))
            elif base is not None:
                out.append((base, {name}))
        return out

    def reexported(self, init: str, name: str) -> str | None:
        """The module a package's `__init__.py` takes `name` from (`from .core import name`), if in the workspace."""
        tree = self.parse(init)
        if tree is None:
            return None
        package = init.removeprefix("src/").removesuffix("/__init__.py").replace("/", ".")
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and any(a.name in (name, "*") for a in node.names):
                if node.level == 1:
                    source = f"{package}.{node.module}" if node.module else package
                elif node.level == 0 and node.module:
                    source = node.module
                else:
                    continue
                path = self.module_path(source)
                if path is not None and path != init:
                    return path
        return None

    def module_path(self, dotted: str) -> str | None:
        relative = dotted.replace(".", "/")
        for layout in LAYOUTS:
            for candidate in (f"{layout}{relative}.py", f"{layout}{relative}/__init__.py"):
                if is_workspace_file(self.root, candidate):
                    return candidate
        return None

    def parse(self, path: str) -> ast.Module | None:
        if path not in self.trees:
            text = _read(self.root, path)
            try:
                self.trees[path] = ast.parse(text) if text is not None else None
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self.trees[path] = None
        return self.trees[path]

    def regex_imports(self, path: str) -> list[str]:
        """A test file that does not parse (Python 2, a syntax error being fixed): its import lines read as text."""
        text = _read(self.root, path) or ""
        found = (self.module_path(m.group("from") or m.group("import")) for m in PY_IMPORT.finditer(text))
        return [f for f in found if f is not None]


def _used_names(tree: ast.Module, tests: set[str]) -> set[str]:
    """The names and attributes the failing test functions use (empty when none is known or found)."""
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in tests:
            for inner in ast.walk(node):
                if isinstance(inner, ast.Name):
                    used.add(inner.id)
                elif isinstance(inner, ast.Attribute):
                    used.add(inner.attr)
    return used


def _read(root: Path, path: str) -> str | None:
    try:
        return read_regular(root / path, MAX_SOURCE).decode("utf-8", "replace")
    except (OSError, SandboxError):
        return None
