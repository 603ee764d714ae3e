"""Tools the model can call: the registry, built-in tools, MCP tools, the permission policy, the sandbox."""
