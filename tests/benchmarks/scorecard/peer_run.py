"""A system that is another program: run headless as a child process in the throwaway workspace, against the same
model server, model, window, temperature, answer cap and time limit as every other system.

The child gets a session of its own (its own process group), so at the time limit the whole group is killed: an
agent's shell commands and its own helpers die with it. Its home and config live under the run's scratch folder
(or the peer's cache), never the user's. Its output goes to files, read back bounded.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .peer_install import InstallError, Peer, ensure, reported_version
from .systems import MAX_TOKENS, Attempt, retry_prompt
from .tasks import Task

LOG_TAIL = 6000  # what a transcript keeps of a child's output
_RUNNING: set[int] = set()  # the process groups of the children running now, for stop_children_on_signal


@dataclass
class RunSettings:
    """What every system shares in one run."""

    base_url: str  # the llama.cpp server, without /v1
    model: str  # the alias it serves
    window: int
    temperature: float | None
    timeout_s: float
    scratch: Path
    api_key: str | None = None  # the server's key, when it requires one
    max_tokens: int = MAX_TOKENS

    @property
    def v1(self) -> str:
        return self.base_url.rstrip("/") + "/v1"

    def key_for_peer(self) -> str:
        # OpenAI clients refuse an empty key; a server without one ignores whatever is sent.
        return self.api_key or "sk-no-key-needed"


@dataclass
class Child:
    argv: list[str]
    env: dict[str, str]
    cwd: Path
    stdin: str | None = None


@dataclass
class ChildResult:
    code: int | None  # None: killed at the time limit
    seconds: float
    stdout: str
    stderr: str


def redact(argv: list[str], replace: dict[str, str], prompt: str | None) -> str:
    """A command line fit for the results: the key, this run's folders and the request (long, task-specific) named
    instead of written out."""
    out = []
    for a in argv:
        if prompt is not None and a == prompt:
            a = "<request>"
        for value, name in replace.items():
            if value:
                a = a.replace(value, name)
        out.append(a)
    return shlex.join(out)


async def run_child(child: Child, timeout_s: float, logs: Path) -> ChildResult:
    logs.mkdir(parents=True, exist_ok=True)
    out_path, err_path = logs / "stdout.txt", logs / "stderr.txt"
    start = time.perf_counter()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = await asyncio.create_subprocess_exec(
            *child.argv,
            cwd=child.cwd,
            env=child.env,
            stdin=asyncio.subprocess.PIPE if child.stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,  # its own process group: killed whole at the limit
        )
        _RUNNING.add(proc.pid)
        code: int | None
        try:
            if child.stdin is not None and proc.stdin is not None:
                proc.stdin.write(child.stdin.encode())
                await proc.stdin.drain()
                proc.stdin.close()
            code = await asyncio.wait_for(proc.wait(), timeout_s)
        except TimeoutError:
            code = None
        finally:
            _kill_group(proc.pid)
            _RUNNING.discard(proc.pid)
            await proc.wait()
    return ChildResult(code, time.perf_counter() - start, _tail(out_path), _tail(err_path))


def stop_children_on_signal() -> None:
    """When this process is told to stop (SIGTERM, SIGHUP), kill every running child's process group first.

    A child has a session of its own, so a signal to the harness alone never reaches it: a stopped benchmark once left
    a peer calling the shared model server for ten minutes, skewing the next run's times. SIGINT needs nothing: it
    cancels the running tasks, whose `finally` kills their group."""

    def stop(signum: int, _frame: object) -> None:
        for pid in list(_RUNNING):
            _kill_group(pid)
        raise SystemExit(128 + signum)  # unwinds `finally` blocks: the model server the run started stops too

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _tail(path: Path) -> str:
    with path.open("rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 200_000))
        return f.read().decode(errors="replace")


def base_env(home: Path, path_first: list[Path], task_env: dict[str, str] | None = None) -> dict[str, str]:
    """The child's environment: this one without agent-server's and the user's config, HOME moved to `home` (so
    nothing of the user's config, history or keys is read or written), the task's Python first on PATH and its
    variables (a library's PYTHONPATH) set, as for a user working on it."""
    skip = ("AGENT_SERVER_", "OPENAI_", "PYTEST", "PYTHONPATH")
    keep = {k: v for k, v in os.environ.items() if not k.startswith(skip)} | (task_env or {})
    home.mkdir(parents=True, exist_ok=True)
    path = os.pathsep.join([*(str(p) for p in path_first), keep.get("PATH", "")])
    xdg = {f"XDG_{k}_HOME": str(home / k.lower()) for k in ("CONFIG", "DATA", "CACHE", "STATE")}
    return {**keep, **xdg, "HOME": str(home), "PATH": path, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"}


class PeerSystem:
    """The base of every peer lane: subclasses say how to install, configure, call and read the peer."""

    name = "peer"
    peer: Peer
    resumes = False  # True: the retry continues the first attempt's conversation
    # The lane's option (`--systems aider:diff`): the ones it takes (None: any, the peer judges it), and what they are.
    options: tuple[str, ...] | None = ()
    options_help = "no option"

    def __init__(self, settings: RunSettings, option: str | None = None) -> None:
        if option and self.options is not None and option not in self.options:
            raise SystemExit(f"--systems: option `{option}`: {self.name} takes {self.options_help}")
        self.option = option
        self.settings = settings
        self.version = ""
        self.command_line = ""
        self.unavailable = ""  # why this peer cannot run here (then every attempt is an error saying so)
        self._logs: list[str] = []
        self._round = 0

    def prepare(self) -> None:
        """Install (first use) and read the version; a failure makes the lane report why, not vanish."""
        try:
            ensure(self.peer)
            self.version = reported_version(self.peer)
        except InstallError as exc:
            self.unavailable = f"not installed: {exc}"[:800]

    def home(self) -> Path:
        return self.settings.scratch / "peers" / self.name.replace(" ", "_")

    def task_dir(self, task: Task) -> Path:
        return self.home() / task.name

    def path_first(self, task: Task) -> list[Path]:
        return [task.python.parent if task.python else Path(sys.executable).parent]

    def env(self, task: Task, home: Path) -> dict[str, str]:
        return base_env(home, self.path_first(task), task.env)

    # --- what a subclass provides -------------------------------------------------------------------------
    def child(self, task: Task, ws: Path, message: str, retry: bool) -> Child:
        raise NotImplementedError

    def read(self, task: Task, ws: Path, result: ChildResult, attempt: Attempt) -> None:
        """Rounds, calls and stop from what the peer left (its log, report or event stream)."""

    def before_first(self, task: Task, ws: Path) -> None:
        """Set the workspace up as this peer's users would (e.g. a git repository for a repository map)."""

    # --- the System protocol ------------------------------------------------------------------------------
    async def first(self, task: Task, ws: Path) -> Attempt:
        self._logs, self._round = [], 0
        if self.unavailable:
            return Attempt(stop="error", error=self.unavailable)
        self.before_first(task, ws)
        return await self._attempt(task, ws, task.request, retry=False)

    async def retry(self, task: Task, ws: Path, test_output: str) -> Attempt:
        feedback = retry_prompt(test_output)
        message = feedback if self.resumes else f"{task.request}\n\n{feedback}"
        return await self._attempt(task, ws, message, retry=True)

    async def _attempt(self, task: Task, ws: Path, message: str, retry: bool) -> Attempt:
        self._round += 1
        child = self.child(task, ws, message, retry)
        if not self.command_line:
            names = {self.settings.key_for_peer(): "<api-key>", str(ws): "<workspace>",
                     str(self.settings.scratch): "<scratch>"}  # fmt: skip
            self.command_line = redact(child.argv, names, message)
        attempt = Attempt()
        try:
            result = await run_child(child, self.settings.timeout_s, self.task_dir(task) / f"attempt-{self._round}")
        except OSError as exc:
            return Attempt(stop="error", error=f"{type(exc).__name__}: {exc}"[:300])
        attempt.seconds = result.seconds
        if result.code is None:
            attempt.stop = "timeout"
        elif result.code == 0:
            attempt.stop = "end_turn"
        else:
            attempt.stop = "error"
            attempt.error = f"exit {result.code}: {result.stderr[-300:]}"
        self._logs.append(result.stdout[-LOG_TAIL:] + "\n--- stderr ---\n" + result.stderr[-LOG_TAIL:])
        try:
            self.read(task, ws, result, attempt)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            attempt.error = (attempt.error + f" (its record was unreadable: {exc})")[:300]
        return attempt

    def transcript(self) -> list[dict[str, Any]]:
        return [{"role": "log", "content": log} for log in self._logs]

    async def close(self) -> None:
        return None

    def describe(self) -> dict[str, Any]:
        """What the results record about this lane."""
        return {
            "package": self.peer.package,
            "pinned": self.peer.version,
            "version": self.version,
            "command": self.command_line,
            "unavailable": self.unavailable or None,
        }
