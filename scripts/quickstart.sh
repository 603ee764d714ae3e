#!/usr/bin/env bash
# Set everything up, then run the agent: a chat in the terminal against your local LLM server
# (Ollama on :11434 or LM Studio on :1234, found automatically). Without one, it uses the built-in
# local model (Qwen2.5-Coder-0.5B run by llama.cpp inside agent-server; ~490 MB, downloaded once
# into your cache and verified) and runs one real agent turn on this repository.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$(pwd)/.venv/bin:$PATH"
if agent-server doctor; then
  exec agent-server chat --workspace "${WORKSPACE:-.}" "$@"
fi
echo
echo "No LLM server answered: using the built-in local model instead (llm.provider = \"embedded\")."
if ! .venv/bin/python -c "import xllamacpp" 2>/dev/null && ! .venv/bin/python -m pip install -q -e '.[local]'; then
  echo "The built-in model needs the prebuilt llama.cpp (xllamacpp), which did not install here."
  echo "Start a server instead (e.g. 'ollama serve' and 'ollama pull qwen3:8b'). Meanwhile, the offline part works:"
  agent-server index --workspace .
  agent-server search --workspace . --limit 5 "turn loop round tool calls"
  exit 0
fi
if [ $# -gt 0 ]; then
  exec agent-server chat --provider embedded --workspace "${WORKSPACE:-.}" "$@"
fi
# One real turn: the agent reads a file of this repository and answers (read-only: writes would be declined). With
# this model the agent shows it the file it asks about (the files edit format, docs/scorecard.md), greedy decoding.
AGENT_SERVER_LLM__TEMPERATURE=0 agent-server chat --provider embedded --workspace . --approve none \
  'What does scripts/setup.sh do? Answer in two sentences.'
echo
echo "That was the agent with the built-in model. Chat on with:  .venv/bin/agent-server chat --provider embedded"
echo "(or set llm.provider = \"embedded\" in ~/.config/agent-server/config.toml; see docs/providers.md)."
# What each built-in model costs on this machine, and which one suits it (agent-server doctor --json, "choices").
.venv/bin/python - <<'PY'
from agent_server.config import Settings
from agent_server.doctor import model_choices
from agent_server.llm.embedded.server import models_dir

for c in model_choices(models_dir(Settings().llm.embedded)):
    mark = "  <- suggested for this machine" if c["suggested"] else ""
    print(f"  {c['model']}: {c['downloadMB']} MB download, ~{c['residentMiB'] / 1024:.1f} GiB resident, {c['speed']}{mark}")
    print(f"    {c['use']}")
PY
