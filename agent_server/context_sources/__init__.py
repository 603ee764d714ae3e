"""What goes into the prompt besides the conversation: the prompt's content blocks and mentions, the index's
automatic context, the hot-context note; the user's own sources (rules files, commands) belong here too."""
