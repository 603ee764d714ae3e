"""agent-server: a local-first coding agent that lives inside the editor."""

__version__ = "0.1.0"
__all__ = ["__version__"]
