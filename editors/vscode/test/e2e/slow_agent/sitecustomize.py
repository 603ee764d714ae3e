"""Test-only (chat.e2e.mjs puts this folder on PYTHONPATH): while the file named by $AGENT_E2E_SLOW_AGENT exists when a
Python starts, the agent server's agent takes 8 s more to load, as on a busy machine. The server still answers
`initialize` at once (the chat is usable), so a prompt typed then arrives while the remembered session is loading."""

import os
import sys
import time
from importlib.abc import MetaPathFinder

_FLAG = os.environ.get("AGENT_E2E_SLOW_AGENT", "")


class _SlowAgent(MetaPathFinder):
    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "agent_server.session.service":
            sys.meta_path.remove(self)
            time.sleep(8)
        return None


if _FLAG and os.path.exists(_FLAG):
    sys.meta_path.insert(0, _SlowAgent())
