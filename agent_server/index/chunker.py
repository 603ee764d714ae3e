"""Cut a file into chunks: tree-sitter definitions (functions, classes, methods) or line windows."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .languages import SPECS, LanguageSpec, language_for, parser_for
from .tokenize import identifiers

MAX_CHUNK_LINES = 120  # longer definitions are split into windows that keep the symbol name
SMALL_CONTAINER_LINES = 40  # a class this short stays one chunk
WINDOW_LINES = 60
_NAME_TYPES = frozenset(
    {"identifier", "type_identifier", "field_identifier", "property_identifier", "qualified_identifier",
     "namespace_identifier", "dot_index_expression", "method_index_expression", "destructor_name", "operator_name"}
)  # fmt: skip
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "class", "generator_function"})
_NEEDS_BODY = frozenset({"struct_specifier", "enum_specifier", "class_specifier"})


@dataclass
class Chunk:
    """A 1-based inclusive line range of a file with its symbol (qualified, e.g. `Class.method`) and kind."""

    start_line: int
    end_line: int
    kind: str
    symbol: str | None
    text: str
    defs: list[str] = field(default_factory=list)


@dataclass
class ChunkedFile:
    chunks: list[Chunk]
    refs: Counter[str]
    language: str | None


def _name(node: Any) -> str | None:
    target = node.child_by_field_name("name")
    if target is None:
        target = node.child_by_field_name("type") if node.type == "impl_item" else None
    if target is None:
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.type not in _NAME_TYPES:
            inner = declarator.child_by_field_name("declarator")
            declarator = inner if inner is not None else None
        target = declarator
    if target is None:
        return None
    text: str = target.text.decode("utf-8", errors="replace")
    return text.replace("::", ".").replace(":", ".")


def _kind(node: Any, spec: LanguageSpec) -> str | None:
    if node.type in _NEEDS_BODY and node.child_by_field_name("body") is None:
        return None
    if node.type in spec.containers:
        return "class"
    if node.type in spec.leaves:
        if node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            return "function" if value is not None and value.type in _FUNCTION_VALUES else None
        return "function"
    return None


class _TreeChunker:
    def __init__(self, lines: list[str], spec: LanguageSpec) -> None:
        self.lines = lines
        self.spec = spec
        self.chunks: list[Chunk] = []

    def emit(self, start: int, end: int, kind: str, symbol: str | None, defs: list[str]) -> None:
        """Add lines start..end (0-based inclusive), split into windows when too long."""
        step = MAX_CHUNK_LINES if end - start + 1 > MAX_CHUNK_LINES else end - start + 1
        for lo in range(start, end + 1, step):
            hi = min(end, lo + step - 1)
            self.chunks.append(Chunk(lo + 1, hi + 1, kind, symbol, "\n".join(self.lines[lo : hi + 1]), defs))

    def visit(self, node: Any, scope: list[str], in_class: bool) -> None:
        for child in node.named_children:
            start = child.start_point[0]
            target = child
            if child.type in ("decorated_definition", "export_statement"):
                inner = child.child_by_field_name("definition") or child.child_by_field_name("declaration")
                if inner is not None:
                    target = inner
            kind = _kind(target, self.spec)
            if kind is None:
                if target.type in ("lexical_declaration", "variable_declaration") or target is not child:
                    self.visit(target, scope, in_class)
                elif child.named_child_count and child.type not in (
                    "block",
                    "compound_statement",
                    "expression_statement",
                ):
                    self.visit(child, scope, in_class)
                continue
            name = _name(target) or "<anonymous>"
            qual = [*scope, name]
            symbol = ".".join(qual)
            end = child.end_point[0]
            if kind == "class":
                if end - start + 1 <= SMALL_CONTAINER_LINES:
                    self.emit(start, end, "class", symbol, [name, *self._inner_names(target)])
                    continue
                before = len(self.chunks)
                body = target.child_by_field_name("body") or target
                self.visit(body, qual, True)
                first_inner = min((c.start_line - 1 for c in self.chunks[before:]), default=end + 1)
                header_end = max(start, min(first_inner - 1, start + WINDOW_LINES - 1))
                self.emit(start, header_end, "class", symbol, [name])
            else:
                self.emit(start, end, "method" if in_class else "function", symbol, [name])

    def _inner_names(self, node: Any) -> list[str]:
        names: list[str] = []
        stack = list(node.named_children)
        while stack:
            n = stack.pop()
            if _kind(n, self.spec) is not None:
                found = _name(n)
                if found:
                    names.append(found)
            stack.extend(n.named_children)
        return names


def _fill_gaps(lines: list[str], chunks: list[Chunk]) -> list[Chunk]:
    """Cover the lines no definition claimed (imports, module code) with line windows."""
    covered = [False] * len(lines)
    for c in chunks:
        for i in range(c.start_line - 1, min(c.end_line, len(lines))):
            covered[i] = True
    out = list(chunks)
    i = 0
    while i < len(lines):
        if covered[i] or not lines[i].strip():
            i += 1
            continue
        j = i
        while j < len(lines) and not covered[j] and j - i < WINDOW_LINES:
            j += 1
        hi = j - 1
        while hi > i and not lines[hi].strip():
            hi -= 1
        out.append(Chunk(i + 1, hi + 1, "block", None, "\n".join(lines[i : hi + 1])))
        i = j
    out.sort(key=lambda c: (c.start_line, c.end_line))
    return out


def chunk_text(path: str, text: str, count_refs: bool = True) -> ChunkedFile:
    """Chunks of one file (by symbol when its language has a grammar) plus its identifier counts."""
    lines = text.splitlines()
    language = language_for(path)
    chunks: list[Chunk] = []
    if language is not None and language in SPECS:
        tree = parser_for(language).parse(text.encode("utf-8", errors="surrogatepass"))
        walker = _TreeChunker(lines, SPECS[language])
        walker.visit(tree.root_node, [], False)
        chunks = walker.chunks
    chunks = _fill_gaps(lines, chunks)
    refs = Counter(name for name in identifiers(text) if len(name) >= 3) if count_refs else Counter()
    return ChunkedFile(chunks, refs, language)


def outline_chunks(path: str, text: str) -> list[Chunk]:
    """A file's chunks, for the outline an older read shrinks to (context/shrink.py's `Outliner`)."""
    return chunk_text(path, text).chunks
