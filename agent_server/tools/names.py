"""The names of the built-in tools, with no imports: the config checks rule names against them, and the config
sits below the tools (which import it). tests/test_config_layers.py holds this list equal to the real tools.
`load_skill` and `remember` are offered only with skills / memory on (context_sources/session_recall.py)."""

BUILTIN_TOOL_NAMES: frozenset[str] = frozenset(
    {
        "ask_question",
        "codebase_search",
        "edit_file",
        "find_files",
        "list_directory",
        "load_skill",
        "read_file",
        "read_output",
        "remember",
        "run_command",
        "search_text",
        "task_completion",
        "update_plan",
        "web_fetch",
        "write_file",
    }
)
