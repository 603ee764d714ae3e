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
echo "agent-server installed in $(pwd)/.venv ($(.venv/bin/agent-server --version))"
