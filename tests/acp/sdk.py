"""The official ACP TypeScript SDK, installed on first need into tests/acp/node_modules (ignored by git).

Both the SDK-driven session test and the schema check of unstable methods (the SDK ships the only schema with
`session/fork`) need it; whichever test runs first installs it, so no test depends on the order pytest runs them."""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import threading
from pathlib import Path

HERE = Path(__file__).parent
NODE = shutil.which("node")
NPM = shutil.which("npm")
SDK_DIR = HERE / "node_modules" / "@agentclientprotocol" / "sdk"
_lock = threading.Lock()


def install() -> Path:
    """`npm ci` once (again when the lockfile is newer than the install); returns the SDK's folder."""
    marker = SDK_DIR / "package.json"
    lock = HERE / "package-lock.json"
    # A thread lock for tests in one process, a file lock for pytest-xdist's workers (two `npm ci` in one folder
    # would break each other's node_modules).
    with _lock, open(HERE / ".npm-install.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not marker.exists() or marker.stat().st_mtime < lock.stat().st_mtime:
            if NPM is None:
                raise RuntimeError("the ACP TypeScript SDK is needed here and npm is not on PATH (node 20+ with npm)")
            subprocess.run(
                [NPM, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, check=True, timeout=600
            )
    return SDK_DIR
