"""The ACP face: `agent-server acp`, a standard Agent Client Protocol v1 agent on stdio."""
