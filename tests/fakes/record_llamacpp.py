"""Record real exchanges with llama-server as fixtures for the fake LLM (tests/fakes/recorded/).

Run: python tests/fakes/record_llamacpp.py  (builds or reuses llama-server and SmolLM2 via scripts/real_llm.sh)

Writes: `llamacpp_props.json` (GET /props), `llamacpp_models.json` (GET /v1/models), `llamacpp_stream.sse` (a
streamed answer, bytes as sent), `llamacpp_tools_dropped.sse` (a request with the agent's tool definitions that the
template drops: note its prompt_tokens), `llamacpp_overflow.json` (the 400 of a prompt over the window) and
`loop_*.txt` (degenerate answers of the model, greedy decoding). Volatile values (timestamps, paths, build) are
replaced by fixed ones so re-recording only changes what the server really changed.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent_server.config import Settings  # noqa: E402
from agent_server.tools.builtin import builtin_tools  # noqa: E402
from agent_server.tools.registry import ToolRegistry  # noqa: E402
from tests.real_llm.llama import build_or_reuse, start_llama, stop_llama  # noqa: E402

OUT = Path(__file__).parent / "recorded"
LOOP_PROMPTS = {
    "loop_list_files": "List every file in a Python project, one per line, with its full path.",
    "loop_repeat_word": "Repeat after me: the the the the the the the the the the",
}


def post(url: str, body: dict[str, Any]) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def stable(text: str) -> str:
    """Fixed values for what changes from run to run."""
    text = re.sub(r'"created":\s*\d+', '"created":1767225600', text)
    text = re.sub(r'"id":\s*"chatcmpl-[^"]*"', '"id":"chatcmpl-recorded"', text)
    text = re.sub(r'"system_fingerprint":\s*"[^"]*"', '"system_fingerprint":"b0-recorded"', text)
    return re.sub(r'"(prompt_ms|predicted_ms|prompt_per_token_ms|predicted_per_token_ms|prompt_per_second|'
                  r'predicted_per_second)":\s*[0-9.e+-]+', r'"\1":1.0', text)  # fmt: skip


def tool_wire() -> list[dict[str, Any]]:
    registry = ToolRegistry(builtin_tools(Settings()), result_limit=20_000)
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in registry.specs()
    ]


def main() -> None:
    OUT.mkdir(exist_ok=True)
    binaries = build_or_reuse()
    llama = start_llama(binaries, Path(tempfile.mkdtemp()) / "llama-server.log")
    try:
        props = llama.get("/props")
        props["model_path"] = "/cache/smollm2-0.1.2/model.gguf"
        props["build_info"] = re.sub(r"\S+$", "recorded", str(props.get("build_info", "")))
        (OUT / "llamacpp_props.json").write_text(json.dumps(props, indent=1, sort_keys=True) + "\n")
        models = llama.get("/v1/models")
        (OUT / "llamacpp_models.json").write_text(stable(json.dumps(models, indent=1, sort_keys=True)) + "\n")
        chat = llama.url + "/v1/chat/completions"
        base = {"model": llama.model, "stream": True, "stream_options": {"include_usage": True}, "temperature": 0}
        ask = {"role": "user", "content": "What is a Python list? One sentence."}
        _, body = post(chat, {**base, "messages": [ask], "max_tokens": 40})
        (OUT / "llamacpp_stream.sse").write_text(stable(body.decode()))
        system = {"role": "system", "content": "You are a coding agent. Use the tools."}
        question = {"role": "user", "content": "Read app.py and tell me what it does."}
        _, body = post(chat, {**base, "messages": [system, question], "tools": tool_wire(), "max_tokens": 40})
        (OUT / "llamacpp_tools_dropped.sse").write_text(stable(body.decode()))
        status, body = post(chat, {**base, "messages": [{"role": "user", "content": "word " * 5000}]})
        (OUT / "llamacpp_overflow.json").write_text(json.dumps({"status": status, "body": json.loads(body)}, indent=1))
        for name, text in LOOP_PROMPTS.items():
            _, body = post(chat, {**base, "stream": False, "messages": [{"role": "user", "content": text}],
                                  "max_tokens": 1500})  # fmt: skip
            answer = json.loads(body)["choices"][0]["message"]["content"]
            (OUT / f"{name}.txt").write_text(answer)
            print(f"{name}: {len(answer)} characters")
    finally:
        stop_llama(llama)
    print("recorded into", OUT)


if __name__ == "__main__":
    main()
