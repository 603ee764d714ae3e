"""Where the scorecard's peers live: each in its own virtualenv or npm prefix under the benchmark's cache, installed
by the benchmark on first use at a pinned version, never into the project's own dependencies.

    ~/.cache/agent-server-bench/peers/<package>-<version>/   (AGENT_BENCH_CACHE moves the cache)

An install that finished leaves `.scorecard-installed` beside it; one that did not is redone. The version a peer
reports after install is what the results record (a pin that the registry no longer serves fails loudly here).
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

MARK = ".scorecard-installed"


def bench_cache() -> Path:
    return Path(os.environ.get("AGENT_BENCH_CACHE") or Path.home() / ".cache" / "agent-server-bench")


@dataclass(frozen=True)
class Peer:
    """One peer package: `kind` is "pypi" (a virtualenv) or "npm" (an npm prefix)."""

    package: str
    version: str
    kind: str
    executable: str  # the command the package installs

    @property
    def home(self) -> Path:
        return bench_cache() / "peers" / f"{self.package}-{self.version}"

    def installed(self) -> bool:
        return (self.home / MARK).is_file()

    def binary(self) -> Path:
        if self.kind == "pypi":
            return self.home / "bin" / self.executable
        return _npm_binary(self.home, self.executable)

    def python(self) -> Path:
        return self.home / "bin" / "python"


class InstallError(RuntimeError):
    """A peer could not be installed: the lane is reported as not run, with this reason."""


def _run(argv: list[str], log: Path, timeout: float) -> None:
    with log.open("ab") as out:
        try:
            done = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, timeout=timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InstallError(f"{' '.join(argv[:3])}: {exc}") from None
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-1500:]
        raise InstallError(f"{' '.join(argv[:4])} exited {done.returncode}:\n{tail}")


def ensure(peer: Peer, timeout: float = 1800) -> Path:
    """The peer's command, installing it first when this cache has not got it yet."""
    if peer.installed():
        return peer.binary()
    peer.home.parent.mkdir(parents=True, exist_ok=True)
    log = peer.home.parent / f"{peer.home.name}.install.log"
    print(f"installing {peer.package}=={peer.version} into {peer.home} (log: {log})", file=sys.stderr, flush=True)
    if peer.kind == "pypi":
        if not peer.python().is_file():
            # The base interpreter, not this virtualenv's: the peer must not see the project's packages.
            base = getattr(sys, "_base_executable", sys.executable)
            _run([base, "-m", "venv", str(peer.home)], log, 600)
        pip = [str(peer.python()), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        _run([*pip, f"{peer.package}=={peer.version}"], log, timeout)
    elif peer.kind == "npm":
        npm = shutil.which("npm")
        if npm is None:
            raise InstallError("npm is not on PATH (Node.js is needed for this peer)")
        args = ["install", "--prefix", str(peer.home), "--no-fund", "--no-audit", f"{peer.package}@{peer.version}"]
        _run([npm, *args], log, timeout)
    else:
        raise InstallError(f"unknown peer kind {peer.kind!r}")
    if not peer.binary().is_file():
        raise InstallError(f"{peer.package} installed but {peer.binary()} is not there")
    (peer.home / MARK).write_text(peer.version + "\n")
    return peer.binary()


def reported_version(peer: Peer) -> str:
    """The version the installed package says it is (what the results record)."""
    if peer.kind == "pypi":
        code = f"import importlib.metadata as m; print(m.version({peer.package!r}))"
        argv = [str(peer.python()), "-c", code]
    else:
        argv = [str(peer.binary()), "--version"]
    env = {**os.environ, "HOME": str(peer.home / "home"), "MSWEA_SILENT_STARTUP": "1"}
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unknown ({exc})"
    lines = done.stdout.strip().splitlines()
    return lines[-1].strip() if done.returncode == 0 and lines else f"unknown (exit {done.returncode})"


def _npm_binary(prefix: Path, name: str) -> Path:
    """An npm package's native binary: opencode-ai ships it as an optional dependency per platform (e.g.
    opencode-linux-x64); its postinstall links it as the package's own bin, which `npm install` may skip."""
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
    system = platform.system().lower()
    modules = prefix / "node_modules"
    for candidate in (f"{name}-{system}-{machine}", f"{name}-{system}-{machine}-baseline"):
        path = modules / candidate / "bin" / name
        if path.is_file():
            return path
    return modules / ".bin" / name
