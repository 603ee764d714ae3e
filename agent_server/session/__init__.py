"""The agent as a service: live sessions, turns shaped by the session's profile, replay of stored transcripts,
titles. `AgentService` (service.py) is the one entry point every face (LSP, ACP, terminal) uses."""
