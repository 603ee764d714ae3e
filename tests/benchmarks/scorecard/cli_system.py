"""agent-server through its headless face (docs/headless.md): `agent-server chat --output-format json` as a child
process in the throwaway workspace, as a script or CI job runs it.

The file tools and commands are allowed by `--allow` rules (the workspace is a throwaway copy; the sandbox still
keeps every tool inside it); what the policy would still ask about is refused, as on any JSON run, and counted
(`approvals_missing`). The retry resumes the session (`--session`). Rounds, tool-call validity and recoveries are
read from the session the run stored, exactly as the in-process lane reads them; the server's own token counts from
the result's `usage`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agent_server.store import Store

from .peer_run import Child, ChildResult, PeerSystem, RunSettings
from .systems import Attempt, count_history
from .tasks import Task

ALLOWED = ("read_file", "write_file", "edit_file", "run_command", "list_directory", "find_files", "search_text")


class AgentCliSystem(PeerSystem):
    name = "agent-server cli"

    def __init__(self, settings: RunSettings) -> None:
        super().__init__(settings)
        self.store = settings.scratch / "agentcli.db"
        self._session: dict[str, str] = {}
        self._seen: dict[str, int] = {}

    def prepare(self) -> None:
        from agent_server import __version__

        self.version = __version__

    def child(self, task: Task, ws: Path, message: str, retry: bool) -> Child:
        s = self.settings
        argv = [sys.executable, "-m", "agent_server", "chat", "--output-format", "json"]
        argv += [arg for tool in ALLOWED for arg in ("--allow", tool)]
        if retry and task.name in self._session:
            argv += ["--session", self._session[task.name]]
        argv += ["--prompt-file", "-"]
        env = self.env(task, self.task_dir(task) / "home")
        llm = {"PROVIDER": "openai", "BASE_URL": s.base_url, "MODEL": s.model, "MAX_TOKENS": str(s.max_tokens)}
        if s.temperature is not None:
            llm["TEMPERATURE"] = str(s.temperature)
        if s.api_key:
            llm["API_KEY"] = s.api_key
        env |= {f"AGENT_SERVER_LLM__{k}": v for k, v in llm.items()}
        env["AGENT_SERVER_STORE__PATH"] = str(self.store)
        return Child(argv, env, ws, stdin=message)

    def read(self, task: Task, ws: Path, result: ChildResult, attempt: Attempt) -> None:
        lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
        if not lines:
            return
        out = json.loads(lines[-1])
        if out.get("stopReason") and attempt.stop != "timeout":
            attempt.stop = str(out["stopReason"])
        if out.get("error"):
            attempt.error = str(out["error"])[:300]
        attempt.usage = {k: v for k, v in (out.get("usage") or {}).items() if isinstance(v, int)}
        if out.get("approvalsMissing"):
            attempt.recoveries["approvals_missing"] = int(out["approvalsMissing"])
        session = out.get("sessionId")
        if not session:
            return
        self._session[task.name] = session
        store = Store(self.store)
        try:
            messages = store.load_messages(session)
        finally:
            store.close()
        count_history(messages[self._seen.get(task.name, 0) :], attempt)
        self._seen[task.name] = len(messages)

    def describe(self) -> dict[str, Any]:
        return {"package": "agent-server", "version": self.version, "command": self.command_line, "unavailable": None}
