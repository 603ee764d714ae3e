"""The user's hooks: programs run before and after tool calls and when a turn ends (`hooks` in the settings)."""

from .runner import HookRun, Hooks, run_hook

__all__ = ["HookRun", "Hooks", "run_hook"]
