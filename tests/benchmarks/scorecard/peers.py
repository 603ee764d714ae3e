"""The peers of the scorecard, each run headless against the same llama.cpp server (docs/scorecard.md says how):

- `aider` (aider-chat): `--message` one-shot, `--yes-always`; the exercise's file added and its test read-only, as
  Aider's own benchmark does; workspace and repository tasks add no file (its repository map finds them, so the
  workspace is made a git repository first). Its edit format is its default for the model (`whole` for a
  Qwen2.5-Coder below 32B) unless the lane names one (`aider:diff`).
- `mini` (mini-swe-agent): the minimal bash-only agent, `mini -y --exit-immediately` with its default config.
- `agentmini` (agent-mini): `agent-mini chat -m ... --yes --report`, provider `local`; its tier comes from the model.
- `opencode` (opencode-ai): `opencode run --format json` with a local OpenAI-compatible provider whose model has
  the run's window and an output limit (so it does not compact after every step).

Nothing phones home: aider's analytics and update check off, opencode's autoupdate, share, model list fetch and LSP
downloads off, litellm's model-cost download off. Each child's HOME is a folder of the run's own.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from .peer_install import Peer
from .peer_run import Child, ChildResult, PeerSystem, RunSettings
from .systems import Attempt
from .tasks import Task

AIDER = Peer("aider-chat", "0.86.2", "pypi", "aider")
MINI = Peer("mini-swe-agent", "2.4.6", "pypi", "mini")
AGENT_MINI = Peer("agent-mini", "0.5.0", "pypi", "agent-mini")
OPENCODE = Peer("opencode-ai", "1.18.33", "npm", "opencode")
NO_COST_MAP = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # litellm would fetch its price list from the web


def git_snapshot(ws: Path) -> None:
    """The workspace as a git repository with one commit: what a user's project is, and what aider's map reads."""
    env = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "bench@localhost", "PATH": "/usr/bin:/bin"}  # fmt: skip
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "start", "--no-verify"]):
        subprocess.run(argv, cwd=ws, env=env, capture_output=True, timeout=120, check=False)


class AiderSystem(PeerSystem):
    peer = AIDER
    resumes = True  # --restore-chat-history
    options = None  # an edit format: aider itself refuses one it does not know
    options_help = "one of its edit formats"

    def __init__(self, settings: RunSettings, edit_format: str | None = None) -> None:
        super().__init__(settings, edit_format)
        self.edit_format = edit_format
        self.name = "aider" + (f" {edit_format}" if edit_format else "")
        self._seen: dict[str, int] = {}

    def model(self) -> str:
        return f"openai/{self.settings.model}"

    def _config(self, home: Path) -> tuple[Path, Path]:
        s = self.settings
        metadata = {self.model(): {"max_input_tokens": s.window, "max_output_tokens": s.max_tokens,
                                   "max_tokens": s.max_tokens, "input_cost_per_token": 0.0,
                                   "output_cost_per_token": 0.0, "litellm_provider": "openai", "mode": "chat"}}  # fmt: skip
        meta_path = home / "model-metadata.json"
        meta_path.write_text(json.dumps(metadata))
        # use_temperature false: the server's own default, as for every system when the run sets none
        temperature = "false" if s.temperature is None else str(s.temperature)
        settings_path = home / "model-settings.yml"
        settings_path.write_text(
            f"- name: {self.model()}\n  use_temperature: {temperature}\n"
            f"  extra_params:\n    max_tokens: {s.max_tokens}\n"
            + (f"  edit_format: {self.edit_format}\n" if self.edit_format else "")
        )
        return meta_path, settings_path

    def before_first(self, task: Task, ws: Path) -> None:
        if task.kind != "exercise":
            git_snapshot(ws)

    def child(self, task: Task, ws: Path, message: str, retry: bool) -> Child:
        home = self.task_dir(task)
        home.mkdir(parents=True, exist_ok=True)
        meta, settings = self._config(home)
        s = self.settings
        argv = [str(self.peer.binary()), "--model", self.model(), "--openai-api-base", s.v1,
                "--openai-api-key", s.key_for_peer(), "--model-metadata-file", str(meta),
                "--model-settings-file", str(settings), "--yes-always", "--no-pretty", "--no-stream",
                "--no-fancy-input", "--no-show-model-warnings", "--no-check-model-accepts-settings",
                "--analytics-disable", "--no-check-update", "--no-show-release-notes", "--no-auto-commits",
                "--no-dirty-commits", "--no-gitignore", "--no-detect-urls", "--no-suggest-shell-commands",
                "--encoding", "utf-8", "--timeout", str(int(s.timeout_s)),
                "--chat-history-file", str(home / "chat.md"), "--input-history-file", str(home / "input.txt"),
                "--llm-history-file", str(home / "llm.txt")]  # fmt: skip
        if self.edit_format:
            argv += ["--edit-format", self.edit_format]
        if retry:
            argv.append("--restore-chat-history")
        if task.kind == "exercise":
            target = task.target or task.files[0]
            argv += ["--no-git", target]
            for test in task.test_files():
                argv += ["--read", test]
        argv += ["--message", message]
        return Child(argv, {**self.env(task, home / "home"), **NO_COST_MAP}, ws)

    def read(self, task: Task, ws: Path, result: ChildResult, attempt: Attempt) -> None:
        log = self.task_dir(task) / "llm.txt"
        total = log.read_text(errors="replace").count("LLM RESPONSE") if log.is_file() else 0
        # One "LLM RESPONSE" block per model call; the log holds both attempts of the task.
        attempt.rounds = total - self._seen.get(task.name, 0)
        self._seen[task.name] = total


class MiniSweSystem(PeerSystem):
    """mini-swe-agent with its default config (`mini.yaml`: the bash command as a tool call), or with `mini:text` its
    config for models without tool calls (`mini_textbased.yaml`: the command in a ```mswea_bash_command block, read
    by its `litellm_textbased` model class): small models write their tool calls as text."""

    name = "mini-swe-agent"
    peer = MINI
    options = ("text",)
    options_help = "`text` (its text-based config) or nothing"

    def __init__(self, settings: RunSettings, config: str | None = None) -> None:
        super().__init__(settings, config)
        self.text = config == "text"
        self.name = "mini-swe-agent" + (" text" if self.text else "")

    def child(self, task: Task, ws: Path, message: str, retry: bool) -> Child:
        home = self.task_dir(task)
        home.mkdir(parents=True, exist_ok=True)
        s = self.settings
        kwargs = {"api_base": s.v1, "api_key": s.key_for_peer(), "max_tokens": s.max_tokens}
        if s.temperature is not None:
            kwargs["temperature"] = s.temperature
        argv = [str(self.peer.binary()), "-m", f"openai/{s.model}", "-t", message, "--yolo", "--exit-immediately",
                "--cost-limit", "0", "-o", str(home / f"traj-{self._round}.json"),
                "-c", "mini_textbased.yaml" if self.text else "mini.yaml", "-c", f"environment.cwd={ws}"]  # fmt: skip
        if self.text:
            argv += ["--model-class", "litellm_textbased"]
        argv += [arg for k, v in kwargs.items() for arg in ("-c", f"model.model_kwargs.{k}={json.dumps(v)}")]
        env = {**self.env(task, home / "home"), **NO_COST_MAP, "MSWEA_CONFIGURED": "true",
               "MSWEA_SILENT_STARTUP": "1", "MSWEA_COST_TRACKING": "ignore_errors",
               "MSWEA_GLOBAL_CONFIG_DIR": str(home / "config")}  # fmt: skip
        return Child(argv, env, ws)

    def read(self, task: Task, ws: Path, result: ChildResult, attempt: Attempt) -> None:
        traj = json.loads((self.task_dir(task) / f"traj-{self._round}.json").read_text())
        info = traj.get("info", {})
        attempt.rounds = int(info.get("model_stats", {}).get("api_calls", 0))
        actions = [a for m in traj.get("messages", []) for a in (m.get("extra") or {}).get("actions", []) or []]
        attempt.calls_attempted = attempt.calls_valid = len(actions)
        status = info.get("exit_status") or ""
        if status and status != "Submitted" and attempt.stop == "end_turn":
            attempt.stop = {"LimitsExceeded": "max_turn_requests"}.get(status, status)


class AgentMiniSystem(PeerSystem):
    name = "agent-mini"
    peer = AGENT_MINI
    resumes = True  # `-s SESSION` continues the conversation

    def __init__(self, settings: RunSettings, option: str | None = None) -> None:
        super().__init__(settings, option)
        self._session: dict[str, str] = {}

    def child(self, task: Task, ws: Path, message: str, retry: bool) -> Child:
        home = self.task_dir(task)
        s = self.settings
        agent: dict[str, object] = {"contextWindow": s.window}
        if s.temperature is not None:
            agent["temperature"] = s.temperature
        config = {
            "provider": "local",
            "providers": {"local": {"baseUrl": s.v1, "apiKey": s.key_for_peer(), "model": s.model}},
            "agent": agent,
            "tools": {"sandboxLevel": "workspace", "confirm": []},
            "memory": {"enabled": False},  # nothing carried between tasks
        }
        (home / "mini-home").mkdir(parents=True, exist_ok=True)
        (home / "mini-home" / "config.json").write_text(json.dumps(config))
        argv = [str(self.peer.binary()), "chat", "-m", message, "--workspace", str(ws), "--yes", "--no-stream",
                "--no-markdown", "--report", str(home / f"report-{self._round}.json")]  # fmt: skip
        if retry and task.name in self._session:
            argv += ["-s", self._session[task.name]]
        env = {**self.env(task, home / "home"), "AGENT_MINI_HOME": str(home / "mini-home")}
        return Child(argv, env, ws)

    def read(self, task: Task, ws: Path, result: ChildResult, attempt: Attempt) -> None:
        report = json.loads((self.task_dir(task) / f"report-{self._round}.json").read_text())
        self._session[task.name] = str(report.get("session", ""))
        attempt.rounds = int(report.get("iterations", 0))
        calls = report.get("tool_calls") or []
        attempt.calls_attempted = len(calls) if isinstance(calls, list) else int(calls or 0)
        attempt.calls_valid = sum(1 for c in calls if isinstance(c, dict) and not c.get("error"))
        if result.code == 2:
            attempt.stop = "max_turn_requests"
        elif result.code == 4:
            attempt.stop = "repetition"


class OpenCodeSystem(PeerSystem):
    name = "opencode"
    peer = OPENCODE
    resumes = True  # --continue: the task's own data folder holds only its session

    def _config(self) -> dict[str, object]:
        s = self.settings
        model: dict[str, object] = {"name": s.model, "tool_call": True,
                                    "limit": {"context": s.window, "output": s.max_tokens}}  # fmt: skip
        if s.temperature is not None:
            model["temperature"] = True
        build: dict[str, object] = {} if s.temperature is None else {"temperature": s.temperature}
        return {
            "$schema": "https://opencode.ai/config.json",
            "autoupdate": False,
            "share": "disabled",
            "provider": {
                "local": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "llama.cpp",
                    "options": {"baseURL": s.v1, "apiKey": s.key_for_peer()},
                    "models": {s.model: model},
                }
            },
            "model": f"local/{s.model}",
            "small_model": f"local/{s.model}",
            "permission": {"edit": "allow", "bash": "allow", "webfetch": "deny"},
            "agent": {"build": build},
        }

    def child(self, task: Task, ws: Path, message: str, retry: bool) -> Child:
        home = self.task_dir(task)
        home.mkdir(parents=True, exist_ok=True)
        config = home / "opencode.json"
        config.write_text(json.dumps(self._config()))
        argv = [str(self.peer.binary()), "run", "--format", "json", "--print-logs", "--pure", "--auto", "--model",
                f"local/{self.settings.model}", "--title", task.name, "--dir", str(ws)]  # fmt: skip
        if retry:
            argv.append("--continue")
        argv.append(message)
        flags = ("AUTOUPDATE", "SHARE", "MODELS_FETCH", "LSP_DOWNLOAD", "DEFAULT_PLUGINS", "CLAUDE_CODE",
                 "EXTERNAL_SKILLS", "PROJECT_CONFIG")  # fmt: skip
        env = {**self.env(task, home / "home"), "OPENCODE_CONFIG": str(config),
               **{f"OPENCODE_DISABLE_{f}": "1" for f in flags}}  # fmt: skip
        return Child(argv, env, ws)

    def read(self, task: Task, ws: Path, result: ChildResult, attempt: Attempt) -> None:
        for line in result.stdout.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            kind = event.get("type") if isinstance(event, dict) else None
            part = (event.get("part") or {}) if isinstance(event, dict) else {}
            if kind == "step_start":
                attempt.rounds += 1
            elif kind == "step_finish":  # what OpenCode counted for the step (the table's figures are the server's)
                tokens = part.get("tokens") or {}
                for key, value in (("input", tokens.get("input")), ("output", tokens.get("output")),
                                   ("cacheRead", (tokens.get("cache") or {}).get("read"))):  # fmt: skip
                    attempt.usage[key] = attempt.usage.get(key, 0) + int(value or 0)
            elif kind == "text" and (part.get("metadata") or {}).get("compaction_continue"):
                attempt.recoveries["compactions"] = attempt.recoveries.get("compactions", 0) + 1
            elif kind == "tool_use":
                attempt.calls_attempted += 1
                state = part.get("state") or {}
                attempt.calls_valid += state.get("status") != "error"
            elif kind == "error" and not attempt.error:
                attempt.error = json.dumps(event)[:300]
        if attempt.error and attempt.stop == "end_turn":
            attempt.stop = "error"


# A new peer is one class above and one entry here; each class judges its own option.
PEER_LANES: dict[str, type[PeerSystem]] = {
    "aider": AiderSystem, "mini": MiniSweSystem, "agentmini": AgentMiniSystem, "opencode": OpenCodeSystem,
}  # fmt: skip
LANE = re.compile(rf"^({'|'.join(PEER_LANES)})(?::([a-z-]+))?$")


def make_peer(spec: str, settings: RunSettings) -> PeerSystem | None:
    """`aider`, `aider:diff`, `mini`, `mini:text`, `agentmini`, `opencode`; None for a name that is no peer lane."""
    match = LANE.match(spec)
    if match is None:
        return None
    lane, option = match.groups()
    return PEER_LANES[lane](settings, option)
