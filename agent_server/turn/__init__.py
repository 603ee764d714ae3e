"""One turn: the loop that prepares the context, calls the model and runs the tools it asked for, and its steps.
Emits ACP-shaped updates to an abstract `AgentClient` (client.py); never imports pygls or an editor's vocabulary."""
