"""The names of the built-in tools, with no imports: the config checks rule names against them before any tool is
imported (the config sits below the tools, which import it, and `initialize` should not wait for every tool module).
tests/tools/test_new_builtin_tool.py holds this list equal to the definitions (tools/builtin.py's BUILTINS and the
code tools) plus `load_skill` and `remember`, which are defined above the tools floor and offered only with skills /
memory on (context_sources/session_recall.py); the code tools only where the editor or the index can serve them
(tools/code_nav.py)."""

BUILTIN_TOOL_NAMES: frozenset[str] = frozenset(
    {
        "ask_question",
        "codebase_search",
        "document_symbols",
        "edit_file",
        "find_definition",
        "find_files",
        "find_references",
        "hover",
        "list_directory",
        "load_skill",
        "read_file",
        "read_output",
        "remember",
        "rename_symbol",
        "run_command",
        "search_text",
        "task_completion",
        "update_plan",
        "web_fetch",
        "write_file",
    }
)
