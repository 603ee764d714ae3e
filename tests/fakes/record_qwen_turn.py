"""Record the real_llm lane's multi-round Qwen turn (read -> approved edit -> pytest, native tool calls) through the
real LSP server, every model exchange kept by a recording proxy.

Run (heavy: a real model): python tests/fakes/record_qwen_turn.py OUT_DIR [--chat | --refuse] [--keep NAME]

OUT_DIR gets `exchanges.json` (each request body the face sent, its status, and the streamed answer) and one
`round_N.sse` per model call. `--chat` drives `agent-server chat` instead of the LSP server (to compare the two
faces); `--refuse` makes the LSP client answer every workspace/applyEdit with null, as the lane's client did
before it applied edits (the editor refused them). `--keep NAME` also writes the rounds as
`tests/fakes/recorded/NAME_N.sse` with volatile values fixed, for the fake-LLM replay tests
(tests/e2e/test_qwen_turn_replay.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.e2e.helpers import answer_permissions, install_apply_edit  # noqa: E402
from tests.fakes.record_llamacpp import OUT, stable  # noqa: E402
from tests.fakes.record_proxy import RecordingProxy  # noqa: E402
from tests.lsp_client import LspClient  # noqa: E402
from tests.real_llm.llama import binaries_from, start_llama, stop_llama  # noqa: E402

CALC = "def add(a, b):\n    return a - b\n"
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
PROMPT = (
    'Make these tool calls one after the other, each once, then answer "done":\n'
    '1. read_file {"path": "calc.py"}\n'
    '2. edit_file {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"}\n'
    '3. run_command {"command": "python -m pytest -q test_calc.py"}'
)


def options(url: str) -> dict[str, Any]:
    llm = {"provider": "openai", "baseUrl": url, "model": "qwen2.5-coder-0.5b-instruct", "temperature": 0}
    return {"llm": {**llm, "maxTokens": 256}, "agent": {"maxRounds": 10, "editFormat": "tools"}}


async def lsp_turn(url: str, workspace: Path, home: Path, refuse: bool) -> str:
    env = {"AGENT_SERVER_STORE__PATH": str(home / "agent.db"), "XDG_CACHE_HOME": str(home / "cache")}
    client = await LspClient.start(env=env, cwd=home)
    try:
        await client.initialize(workspace, options(url))
        answer_permissions(client, "allow_once")
        if not refuse:  # an editor that applies and saves at once; else every applyEdit gets null (refused)
            install_apply_edit(client)
        sid = (await client.request("agent/session/new", {"cwd": str(workspace), "mcpServers": []}))["sessionId"]
        params = {"sessionId": sid, "prompt": [{"type": "text", "text": PROMPT}]}
        result = await client.request("agent/session/prompt", params, timeout=3000)
        return f"{result['stopReason']}\n{client.text(sid)}"
    finally:
        await client.close()


def chat_turn(url: str, workspace: Path, home: Path) -> str:
    args = [sys.executable, "-m", "agent_server", "chat", "-w", str(workspace), "--approve", "all", PROMPT]
    env = {**os.environ, "AGENT_SERVER_STORE__PATH": str(home / "agent.db"), "XDG_CACHE_HOME": str(home / "cache")}
    for section, values in options(url).items():
        for key, value in values.items():
            snake = "".join("_" + c.lower() if c.isupper() else c for c in key)
            env[f"AGENT_SERVER_{section.upper()}__{snake.upper()}"] = str(value)
    proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=3000, cwd=home)
    return proc.stdout + proc.stderr


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--chat", action="store_true")
    parser.add_argument("--keep")
    parser.add_argument("--refuse", action="store_true", help="the LSP client refuses every edit (answers null)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    found = subprocess.run(["bash", "scripts/real_llm.sh"], cwd=ROOT, capture_output=True, text=True, check=True)
    binaries = binaries_from(found.stdout, "QWEN_MODEL")
    assert binaries is not None, found.stdout
    llama = start_llama(binaries, args.out / "llama.log", 8192, alias="qwen2.5-coder-0.5b-instruct")
    proxy = RecordingProxy(llama.url).start()
    home = Path(tempfile.mkdtemp())
    workspace = home / "proj"
    workspace.mkdir()
    (workspace / "calc.py").write_text(CALC)
    (workspace / "test_calc.py").write_text(TEST_CALC)
    try:
        if args.chat:
            seen = chat_turn(proxy.url, workspace, home)
        else:
            seen = asyncio.run(lsp_turn(proxy.url, workspace, home, args.refuse))
    finally:
        proxy.stop()
        stop_llama(llama)
    dump = [{"body": e.body, "status": e.status, "raw": e.raw.decode(errors="replace")} for e in proxy.exchanges]
    (args.out / "exchanges.json").write_text(json.dumps(dump, indent=1))
    for n, e in enumerate(proxy.exchanges, 1):
        (args.out / f"round_{n}.sse").write_bytes(e.raw)
        if args.keep:
            text = stable(e.raw.decode()).replace(str(workspace), "/workspace")
            (OUT / f"{args.keep}_{n}.sse").write_text(text)
    (args.out / "turn.txt").write_text(seen + f"\n\ncalc.py now:\n{(workspace / 'calc.py').read_text()}")
    print(seen[-3000:])
    print(f"{len(proxy.exchanges)} model calls; calc.py now: {(workspace / 'calc.py').read_text()!r}")


if __name__ == "__main__":
    main()
