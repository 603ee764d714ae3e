"""What goes into the prompt besides the conversation: the prompt's content blocks and mentions, the index's
automatic context, the hot-context note, the files shown in the `files` edit format, the user's and the
repository's rules files (AGENTS.md and its peers' formats, nested per folder, within a token budget) and custom
commands (prompt files, MCP prompts)."""
