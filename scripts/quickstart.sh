#!/usr/bin/env bash
# Set everything up, then run the agent: a chat in the terminal against your local LLM server
# (Ollama on :11434 or LM Studio on :1234, found automatically). Without one, it indexes this
# project and shows a code search, and tells you how to start a server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$(pwd)/.venv/bin:$PATH"
if agent-server doctor; then
  exec agent-server chat --workspace "${WORKSPACE:-.}" "$@"
fi
echo
echo "No LLM server answered. Start one (e.g. 'ollama serve' and 'ollama pull qwen3:8b'), then run:"
echo "  .venv/bin/agent-server chat"
echo "Meanwhile, the offline part works: indexing and searching this project."
agent-server index --workspace .
agent-server search --workspace . --limit 5 "turn loop round tool calls"
