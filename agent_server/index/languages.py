"""Which tree-sitter grammar parses a file and which node types are chunk-worthy definitions."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".lua": "lua",
}


@dataclass(frozen=True)
class LanguageSpec:
    """Definition node types: `containers` hold other definitions (classes), `leaves` are functions/methods."""

    containers: frozenset[str]
    leaves: frozenset[str]


_JS_CONTAINERS = frozenset({"class_declaration", "class", "abstract_class_declaration", "interface_declaration"})
_JS_LEAVES = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "variable_declarator",  # only when its value is a function; checked in the chunker
        "type_alias_declaration",
        "enum_declaration",
    }
)

SPECS: dict[str, LanguageSpec] = {
    "python": LanguageSpec(frozenset({"class_definition"}), frozenset({"function_definition"})),
    "javascript": LanguageSpec(_JS_CONTAINERS, _JS_LEAVES),
    "typescript": LanguageSpec(_JS_CONTAINERS | {"module", "internal_module"}, _JS_LEAVES),
    "tsx": LanguageSpec(_JS_CONTAINERS, _JS_LEAVES),
    "go": LanguageSpec(frozenset(), frozenset({"function_declaration", "method_declaration", "type_spec"})),
    "rust": LanguageSpec(
        frozenset({"impl_item", "trait_item", "mod_item"}),
        frozenset({"function_item", "struct_item", "enum_item", "macro_definition", "type_item"}),
    ),
    "java": LanguageSpec(
        frozenset({"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}),
        frozenset({"method_declaration", "constructor_declaration"}),
    ),
    "c": LanguageSpec(frozenset(), frozenset({"function_definition", "struct_specifier", "enum_specifier"})),
    "cpp": LanguageSpec(
        frozenset({"class_specifier", "struct_specifier", "namespace_definition"}),
        frozenset({"function_definition", "enum_specifier"}),
    ),
    "lua": LanguageSpec(frozenset(), frozenset({"function_declaration"})),
}

_parsers: dict[str, Any] = {}
_local = threading.local()


def language_for(path: str) -> str | None:
    """The grammar name for a path, or None for line-window chunking."""
    return EXTENSIONS.get(PurePosixPath(path).suffix.lower())


def parser_for(language: str) -> Any:
    """A tree-sitter parser for `language`, one per thread (parsers are not thread-safe)."""
    cache: dict[str, Any] | None = getattr(_local, "parsers", None)
    if cache is None:
        cache = {}
        _local.parsers = cache
    parser = cache.get(language)
    if parser is None:
        from tree_sitter_language_pack import get_parser

        parser = get_parser(language)  # type: ignore[arg-type]
        cache[language] = parser
    return parser
