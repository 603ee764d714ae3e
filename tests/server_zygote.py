"""Start `python -m agent_server ARGS` for the tests in milliseconds: a forked copy of a process that imported the
server once (a "zygote", as Android starts its apps), instead of a new interpreter each time.

Why: about 700 tests each start the real server; each start spends 1.5–2 s of CPU importing pygls, lsprotocol,
pydantic and the package before it answers, on a 2-core CI machine where that CPU is the suite's bottleneck. The
forked server is the same code on the same stdio pipes: only the interpreter's start is shared.

What stays a real `exec`: any start whose environment changes what the interpreter or an import does (a PYTHON*
variable: a test's `sitecustomize` on PYTHONPATH, `-X importtime`), the tests of the start itself
(`tests/startup/`, `test_stdout_claimed.py`, which call `asyncio.create_subprocess_exec` themselves), and every start
when AGENT_TEST_EXEC=1 (`scripts/test.sh` leaves it unset). The zygote imports modules only, never reads the
environment or the configuration, and starts no thread (numpy's OpenBLAS pool is kept to the calling thread, so
that nothing is lost in the fork): a child begins from that snapshot with its own environment,
working directory, argv and pipes, as a new interpreter would.

One zygote per test process (each xdist worker), started on the first server start and stopped at exit. The protocol
is one SOCK_SEQPACKET connection per child: the request (argv, environment, directory as JSON, and the three pipe
ends as SCM_RIGHTS), then the zygote's two answers: {"pid": N} at once, {"exit": code} when the child has ended.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# What a server start imports before it answers `session/new` (the rest loads when it is used, as it would).
PRELOAD = (
    "agent_server.cli",
    "agent_server.protocol.app",
    "agent_server.session.service",
    "agent_server.acp_agent.agent",
)
MAX_REQUEST = 1 << 20


# --- the zygote (its own process) ------------------------------------------------------------------------------


def _serve(path: str) -> None:
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    zygote = os.getpid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(64)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ)
    children: dict[int, socket.socket] = {}
    parent = os.getppid()
    while os.getppid() == parent:  # the test process is gone: so is its zygote
        for _ready in sel.select(timeout=0.05):
            conn, _ = listener.accept()
            try:
                payload, fds, _, _ = socket.recv_fds(conn, MAX_REQUEST, 3)
                request = json.loads(payload)
                pid = os.fork()
            except Exception as exc:  # a bad request fails that start, not the zygote
                with contextlib.suppress(OSError):
                    conn.send(json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode())
                conn.close()
                continue
            if pid == 0:
                sel.close()
                listener.close()
                for other in children.values():
                    other.close()
                conn.close()
                _become_server(request, fds)  # never returns
            for fd in fds:
                os.close(fd)
            conn.send(json.dumps({"pid": pid}).encode())
            children[pid] = conn
        _reap(children)
    if os.getpid() == zygote:
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _reap(children: dict[int, socket.socket]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.send(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode())
            conn.close()


def _become_server(request: dict[str, Any], fds: list[int]) -> None:
    """In the forked child: take the pipes, the environment, the directory and argv, then run the entry point as
    `python -m agent_server` would, and exit the way the interpreter would after it."""
    import runpy

    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = ["agent_server", *request["args"]]
    sys.path[0] = os.getcwd()  # `python -m` puts the working directory first
    code: Any = 0
    try:
        runpy.run_module("agent_server", run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exc.code
    # Out through the zygote's frames to the interpreter's own exit (atexit handlers, finalizers), as after
    # `python -m agent_server`; an exception escapes the same way, with its traceback on stderr and status 1.
    raise SystemExit(code)


# --- the tests' side ---------------------------------------------------------------------------------------------


class ForkedServer:
    """What the tests use of `asyncio.subprocess.Process`, for a server forked by the zygote."""

    def __init__(
        self, pid: int, control: socket.socket, stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader,
        stderr: asyncio.StreamReader,
    ) -> None:  # fmt: skip
        self.pid, self.stdin, self.stdout, self.stderr = pid, stdin, stdout, stderr
        self.returncode: int | None = None
        self._control = control
        self._exit = asyncio.ensure_future(self._watch())

    async def _watch(self) -> int:
        loop = asyncio.get_running_loop()
        try:
            data = await loop.sock_recv(self._control, 4096)
            code = int(json.loads(data)["exit"]) if data else -signal.SIGKILL
        except (OSError, ValueError, KeyError):
            code = -signal.SIGKILL
        finally:
            self._control.close()
        self.returncode = code
        return code

    async def wait(self) -> int:
        return await asyncio.shield(self._exit)

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


_zygote: tuple[subprocess.Popen[bytes], str, dict[str, str]] | None = None  # the process, its socket, its PYTHON*


def _python_vars(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith("PYTHON")}


def usable(env: dict[str, str]) -> bool:
    """A forked start behaves as an exec'd one: not when asked not to, nor when the PYTHON* variables differ from the
    ones the zygote started with (or, before it started, from this process's: the ones it will start with)."""
    if os.environ.get("AGENT_TEST_EXEC") == "1" or env.get("AGENT_TEST_EXEC") == "1":
        return False
    started = _zygote[2] if _zygote is not None and _zygote[0].poll() is None else _python_vars(os.environ)
    return _python_vars(env) == started and hasattr(socket, "send_fds") and sys.platform == "linux"


def _socket_path() -> str:
    global _zygote
    if _zygote is not None and _zygote[0].poll() is None:
        return _zygote[1]
    folder = tempfile.mkdtemp(prefix="zygote-")
    path = os.path.join(folder, "s")
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.server_zygote", path], cwd=root, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )  # fmt: skip
    _zygote = (proc, path, _python_vars(os.environ))
    atexit.register(_stop, proc, folder)
    return path


def _stop(proc: subprocess.Popen[bytes], folder: str) -> None:
    import shutil

    proc.kill()
    with contextlib.suppress(Exception):
        proc.wait(5)
    shutil.rmtree(folder, ignore_errors=True)


CONNECT_TRIES, CONNECT_PAUSE_S = 600, 0.05  # the zygote binds once its imports are done (~2 s; longer under load)


def _try_connect(control: socket.socket, path: str) -> bool:
    try:
        control.connect(path)
        return True
    except (FileNotFoundError, ConnectionRefusedError):
        return False


def _send(control: socket.socket, args: list[str], env: dict[str, str], cwd: str, child_fds: list[int]) -> None:
    """The request with the child's stdin, stdout and stderr ends, closed here once sent (the zygote has them)."""
    try:
        socket.send_fds(control, [json.dumps({"args": args, "env": env, "cwd": cwd}).encode()], child_fds)
    finally:
        for fd in child_fds:
            os.close(fd)


async def start(args: list[str], env: dict[str, str], cwd: str | None, limit: int) -> ForkedServer:
    """`python -m agent_server ARGS` with this environment and directory, forked from the zygote."""
    loop = asyncio.get_running_loop()
    path = _socket_path()
    control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    for _ in range(CONNECT_TRIES):
        if _try_connect(control, path):
            break
        await asyncio.sleep(CONNECT_PAUSE_S)
    else:
        raise RuntimeError("the test server zygote did not start")
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    _send(control, args, env, cwd or os.getcwd(), [in_r, out_w, err_w])
    control.setblocking(False)
    answer = json.loads(await loop.sock_recv(control, 4096))
    if "pid" not in answer:
        for fd in (in_w, out_r, err_r):
            os.close(fd)
        raise RuntimeError(f"the test server zygote could not start a server: {answer}")
    stdout = asyncio.StreamReader(limit=limit)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdout), os.fdopen(out_r, "rb", 0))
    stderr = asyncio.StreamReader(limit=limit)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stderr), os.fdopen(err_r, "rb", 0))
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(loop), os.fdopen(in_w, "wb", 0)
    )
    stdin = asyncio.StreamWriter(transport, protocol, None, loop)
    return ForkedServer(int(answer["pid"]), control, stdin, stdout, stderr)


def run(
    args: list[str],
    *,
    input: str | None = None,
    env: dict[str, str] | None = None,
    cwd: str | Path | None = None,
    timeout: float | None = None,
    stdin: Any = None,
) -> subprocess.CompletedProcess[str]:
    """`subprocess.run([python, "-m", "agent_server", *args], capture_output=True, text=True, ...)`, forked from the
    zygote when it can be (a CLI test's command: `chat`, `sessions`, `doctor` ...)."""
    full_env = dict(os.environ if env is None else env)
    where = str(cwd) if cwd is not None else os.getcwd()
    if not usable(full_env) or (stdin is not None and stdin != subprocess.DEVNULL):
        argv = [sys.executable, "-m", "agent_server", *args]
        return subprocess.run(
            argv, input=input, env=full_env, cwd=where, timeout=timeout, stdin=stdin, capture_output=True, text=True
        )
    control = _connect_blocking()
    in_r, in_w = os.pipe() if input is not None else (os.open(os.devnull, os.O_RDONLY), -1)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    _send(control, args, full_env, where, [in_r, out_w, err_w])
    answer = json.loads(control.recv(4096))
    if "pid" not in answer:
        for fd in (in_w, out_r, err_r):
            if fd >= 0:
                os.close(fd)
        raise RuntimeError(f"the test server zygote could not start agent-server: {answer}")
    pid = int(answer["pid"])
    out, err = _communicate(pid, input, in_w, out_r, err_r, timeout, args)
    control.settimeout(30)
    try:
        code = int(json.loads(control.recv(4096))["exit"])
    except (OSError, ValueError, KeyError):
        code = -signal.SIGKILL
    finally:
        control.close()
    return subprocess.CompletedProcess(
        [sys.executable, "-m", "agent_server", *args], code, out.decode(errors="replace"), err.decode(errors="replace")
    )


def _connect_blocking() -> socket.socket:
    import time

    path = _socket_path()
    control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    for _ in range(CONNECT_TRIES):
        if _try_connect(control, path):
            return control
        time.sleep(CONNECT_PAUSE_S)
    raise RuntimeError("the test server zygote did not start")


def _communicate(
    pid: int, input: str | None, in_w: int, out_r: int, err_r: int, timeout: float | None, args: list[str]
) -> tuple[bytes, bytes]:
    """Write the input and read both outputs to their ends (as Popen.communicate), within the timeout."""
    import time

    deadline = None if timeout is None else time.monotonic() + timeout
    pending = (input or "").encode()
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    sel = selectors.DefaultSelector()
    for fd in (out_r, err_r):
        sel.register(fd, selectors.EVENT_READ)
    if in_w >= 0:
        if pending:
            os.set_blocking(in_w, False)
            sel.register(in_w, selectors.EVENT_WRITE)
        else:
            os.close(in_w)
    try:
        while sel.get_map():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                raise subprocess.TimeoutExpired([sys.executable, "-m", "agent_server", *args], timeout or 0)
            for key, _ in sel.select(left):
                fd = int(key.fd)
                if fd == in_w:
                    try:
                        pending = pending[os.write(in_w, pending[:65536]) :]
                    except BrokenPipeError:
                        pending = b""
                    if not pending:
                        sel.unregister(in_w)
                        os.close(in_w)
                    continue
                data = os.read(fd, 65536)
                if data:
                    chunks[fd].append(data)
                else:
                    sel.unregister(fd)
    finally:
        open_fds = {int(key.fd) for key in sel.get_map().values()} | {out_r, err_r}
        sel.close()
        for fd in open_fds:  # each once: a second close could hit a descriptor reused meanwhile
            with contextlib.suppress(OSError):
                os.close(fd)
    return b"".join(chunks[out_r]), b"".join(chunks[err_r])


if __name__ == "__main__":
    _serve(sys.argv[1])
