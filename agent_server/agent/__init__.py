"""Sessions and the turn loop. Emits ACP-shaped updates to an abstract `AgentClient`; never imports pygls."""
