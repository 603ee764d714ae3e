"""What goes into the prompt besides the conversation: the user's and the repository's rules files (AGENTS.md and
its peers' formats), nested per folder, within a token budget."""
