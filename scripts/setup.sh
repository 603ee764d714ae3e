#!/usr/bin/env bash
# Create .venv and install agent-server with its development tools (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[dev]'
# An editable install leaves the package's bytecode to the first import, and where PYTHONDONTWRITEBYTECODE is set
# (as on this project's CI machines) every process compiles every module it imports, again: the tests start the
# server ~700 times (and fake servers from tests/fakes). Compiling once here spares each start ~0.25 s of CPU.
.venv/bin/python -m compileall -q -j 0 agent_server tests/fakes >/dev/null || true
echo "agent-server installed in $(pwd)/.venv ($(.venv/bin/agent-server --version))"
