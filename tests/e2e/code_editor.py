"""An editor whose language server answers `agent/_code` for the code tools' end-to-end tests.

It answers the way our VS Code extension and Neovim plugin do (docs/protocol.md): the language server's own answer
in LSP shape, positions in UTF-16 (what both editors' language servers count), `served: false` for a file no
language server handles. The analysis is jedi's, the library behind the Python language servers (jedi-language-
server, pylsp); a rename is the edits of every reference jedi finds, as a language server's rename returns them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import jedi

from tests.lsp_client import LspClient

SAMPLE = {
    "calc.py": '"""Small sums."""\n\n\ndef total(xs):\n    """Add up the numbers in xs."""\n    return sum(xs)\n\n\n'
    "class Basket:\n    def __init__(self):\n        self.items = []\n\n    def price(self):\n"
    "        return total(self.items)\n",
    # An emoji before a use: its column differs in UTF-16 (the editor's units) and in code points (the server's).
    "main.py": 'from calc import total\n\nlabel = "é😀"; print(total([1, 2]))\nprint(total([3]))\n',
}


def write_sample(root: Path) -> None:
    for name, text in SAMPLE.items():
        (root / name).write_text(text)


def utf16(line: str, index: int) -> int:
    return len(line[:index].encode("utf-16-le")) // 2


def code_points(line: str, units: int) -> int:
    count = 0
    for index, char in enumerate(line):
        count += len(char.encode("utf-16-le")) // 2
        if count > units:
            return index
    return len(line)


def path_of(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path))


def _lines(path: Path) -> list[str]:
    return path.read_text().split("\n")


def location(path: Path, line: int, column: int, length: int) -> dict[str, Any]:
    """An LSP Location for jedi's 1-based line and code point column."""
    text = _lines(path)[line - 1]
    start, end = utf16(text, column), utf16(text, column + length)
    return {"uri": path.as_uri(), "range": {"start": {"line": line - 1, "character": start},
                                            "end": {"line": line - 1, "character": end}}}  # fmt: skip


_KINDS = {"class": 5, "function": 12, "module": 2, "statement": 13, "instance": 13}


def _symbol(name: Any) -> dict[str, Any]:
    start, end = name.get_definition_start_position(), name.get_definition_end_position()
    span = {"start": {"line": start[0] - 1, "character": start[1]}, "end": {"line": end[0] - 1, "character": end[1]}}
    out: dict[str, Any] = {"name": name.name, "kind": _KINDS.get(name.type, 13), "range": span, "selectionRange": span}
    if name.type == "class":
        out["children"] = [_symbol(child) for child in name.defined_names()]
    return out


class JediEditor:
    """Install on a test client with `install`; `asked` keeps every `agent/_code` request the server sent."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.project = jedi.Project(root)
        self.asked: list[dict[str, Any]] = []

    def install(self, client: LspClient) -> None:
        client.handlers["agent/_code"] = self.answer

    async def answer(self, params: dict[str, Any]) -> dict[str, Any]:
        self.asked.append(params)
        return await asyncio.to_thread(self._answer, params)

    def _answer(self, params: dict[str, Any]) -> dict[str, Any]:
        path = path_of(params["uri"])
        if path.suffix != ".py":
            return {"served": False}
        script = jedi.Script(path.read_text(), path=path, project=self.project)
        kind = params["kind"]
        if kind == "documentSymbol":
            return {"served": True, "result": [_symbol(n) for n in script.get_names()]}
        line = params["position"]["line"]
        column = code_points(_lines(path)[line], params["position"]["character"])
        if kind == "definition":
            names = script.goto(line + 1, column, follow_imports=True)
            return {"served": True, "result": [location(n.module_path, n.line, n.column, len(n.name)) for n in names]}
        if kind == "references":
            names = script.get_references(line + 1, column)
            return {"served": True, "result": [location(n.module_path, n.line, n.column, len(n.name)) for n in names]}
        if kind == "hover":
            docs = "\n\n".join(n.docstring() for n in script.infer(line + 1, column))
            return {"served": True, "result": {"contents": {"kind": "markdown", "value": docs}}}
        assert kind == "rename", kind
        changes: dict[str, list[dict[str, Any]]] = {}
        for n in script.get_references(line + 1, column):
            where = location(n.module_path, n.line, n.column, len(n.name))
            changes.setdefault(where["uri"], []).append({"range": where["range"], "newText": params["newName"]})
        return {"served": True, "result": {"changes": changes}}
