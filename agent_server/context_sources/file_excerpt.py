"""A file too long to show whole, shown in part: the functions a failure or the request names, with line numbers.

Dropping such a file left a small model editing whatever else fitted (a 10-line helper instead of the module the
traceback named); a window around the named lines is what it needs to write a search/replace block. Python files are
read with `ast` so that a part is a whole function or method (decorators included); other languages get a window
around the named lines and definitions. Each part is its own fenced block under a `path, lines a-b` header: line
numbers outside the code, so the model can copy the code into a SEARCH block exactly as it is.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from ..context import estimate_text
from ..turn import prompts

WINDOW = 15  # lines either side of a named line, where no definition holds it (or it is too long)
HEAD_LINES = 30  # the module's start (imports, constants) shown when room is left
LONG_DEF = 200  # a definition longer than this is shown as a window around the named line, not whole
MAX_OUTLINE = 12  # definitions listed as left out (public ones first): what else the file holds, in brief


@dataclass
class Excerpt:
    """The parts of a file shown (1-based, inclusive) and the rendered text."""

    parts: list[tuple[int, int]] = field(default_factory=list)
    text: str = ""


@dataclass
class _Def:
    name: str
    start: int
    end: int
    top: bool
    head_end: int  # a class: the line before its first method (its docstring and attributes); else `end`


def excerpt(path: str, text: str, fence: str, lines: list[int], names: set[str], budget: int) -> Excerpt:
    """`text` shown in part within `budget` tokens: the definitions holding `lines` (deepest frame first), then those
    `names` names, then the module's start; nothing when not even the first part fits."""
    rows = text.splitlines()
    defs = _python_defs(text) if path.endswith(".py") else None
    wanted = _wanted(rows, defs, lines, names)
    if not wanted:
        wanted = [(1, min(len(rows), 2 * HEAD_LINES))]
    else:
        wanted.append((1, min(len(rows), HEAD_LINES, _first_def(defs, len(rows)))))
    parts: list[tuple[int, int]] = []
    header = _header(path, len(rows), [], [])
    used = estimate_text(header) + 40
    for start, end in wanted:
        if any(s <= start and end <= e for s, e in parts):
            continue
        cost = estimate_text("\n".join(rows[start - 1 : end])) + 20
        if used + cost > budget:
            continue
        parts.append((start, end))
        used += cost
    if not parts:
        return Excerpt()
    parts = _merged(parts)
    outline = [d for d in defs or [] if d.top and not any(s <= d.start <= e for s, e in parts)]
    outline.sort(key=lambda d: d.name.startswith("_"))
    blocks = [_header(path, len(rows), parts, outline)]
    for start, end in parts:
        body = "\n".join(rows[start - 1 : end])
        blocks.append(f"{path}, lines {start}-{end}:\n{fence}\n{body}\n```")
    return Excerpt(parts, "\n".join(blocks))


def _wanted(rows: list[str], defs: list[_Def] | None, lines: list[int], names: set[str]) -> list[tuple[int, int]]:
    """The spans to show, most wanted first: each named line's definition, then each named definition."""
    out: list[tuple[int, int]] = []
    total = len(rows)
    for line in lines:
        if not 1 <= line <= total:
            continue
        holder = _innermost(defs or [], line)
        if holder is not None and holder.end - holder.start < LONG_DEF:
            out.append((holder.start, holder.end))
        else:
            out.append((max(1, line - WINDOW), min(total, line + WINDOW)))
    if defs is not None:  # a named class: its head (the methods the test uses are named themselves)
        out += [(d.start, min(d.head_end, d.start + LONG_DEF)) for d in defs if d.name in names]
    else:
        out += [(max(1, n - 2), min(total, n + 2 * WINDOW)) for n in _defined_at(rows, names)]
    return out


def _python_defs(text: str) -> list[_Def] | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out: list[_Def] = []
    kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef

    def visit(body: list[ast.stmt], top: bool) -> None:
        for node in body:
            if isinstance(node, kinds):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                end = node.end_lineno or node.lineno
                head_end = end
                if isinstance(node, ast.ClassDef):
                    inner = [c.lineno for c in node.body if isinstance(c, kinds)]
                    head_end = min([*inner, end + 1]) - 1
                out.append(_Def(node.name, start, end, top, head_end))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, False)

    visit(tree.body, True)
    return out


def _innermost(defs: list[_Def], line: int) -> _Def | None:
    holding = [d for d in defs if d.start <= line <= d.end]
    return min(holding, key=lambda d: d.end - d.start) if holding else None


def _first_def(defs: list[_Def] | None, total: int) -> int:
    return min((d.start - 1 for d in defs or [] if d.top), default=total)


DEFINITION = r"(?:def|function|fn|func|class|struct|interface|type|const|let|var|local function|sub|proc)\s+"


def _defined_at(rows: list[str], names: set[str]) -> list[int]:
    """Lines (1-based) where a non-Python file defines one of `names`, by the usual definition keywords."""
    if not names:
        return []
    pattern = re.compile(rf"\b{DEFINITION}(?:{'|'.join(re.escape(n) for n in sorted(names))})\b")
    return [number for number, row in enumerate(rows, 1) if pattern.search(row)][:20]


def _merged(parts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, with overlapping or nearly touching parts joined (a gap of a line or two is not worth a new block)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(parts):
        if out and start <= out[-1][1] + 3:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _header(path: str, total: int, parts: list[tuple[int, int]], outline: list[_Def]) -> str:
    spans = ", ".join(f"{s}-{e}" for s, e in parts)
    note = prompts.FILES_IN_PART.format(path=path, total=total, spans=spans)
    if outline:
        listed = ", ".join(f"{d.name} (line {d.start})" for d in outline[:MAX_OUTLINE])
        more = f" and {len(outline) - MAX_OUTLINE} more" if len(outline) > MAX_OUTLINE else ""
        note += f" Also in it, not shown: {listed}{more}."
    return note
