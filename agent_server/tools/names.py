"""The names of the built-in tools, with no imports: the config checks rule names against them, and the config
sits below the tools (which import it). tests/test_config_layers.py holds this list equal to the real tools."""

BUILTIN_TOOL_NAMES: frozenset[str] = frozenset(
    {
        "ask_question",
        "codebase_search",
        "edit_file",
        "find_files",
        "list_directory",
        "read_file",
        "read_output",
        "run_command",
        "search_text",
        "task_completion",
        "update_plan",
        "web_fetch",
        "write_file",
    }
)
