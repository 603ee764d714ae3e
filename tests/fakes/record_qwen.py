"""Record real Qwen2.5-Coder-0.5B exchanges (embedded llama.cpp, its own jinja template) as fake-LLM fixtures.

Run: python tests/fakes/record_qwen.py [GGUF]  (default: the catalogue model, fetched into the user cache if missing)

Each request is the agent's real first request: its system prompt for a workspace holding calc.py, the built-in
tool definitions, the user's question, greedy decoding. Writes `qwen_<name>.sse` (the streamed answer, bytes as
sent, volatile values fixed). These are the defect classes of issue 25: a call written as text, a call of a name
that is not a tool, an answer that never looked at the named file.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent_server.config import EmbeddedConfig, LLMConfig  # noqa: E402
from agent_server.llm.embedded.provider import start_embedded  # noqa: E402
from agent_server.turn.prompts import system_prompt  # noqa: E402
from tests.fakes.record_llamacpp import OUT, post, stable, tool_wire  # noqa: E402

PROMPTS = {
    "qwen_read_calc": "Read calc.py and tell me what the add function does.",
    "qwen_fix_calc": "Fix the bug in calc.py: add(2, 3) should return 5.",
    "qwen_list_then_read": "What is in this project? Look at the files and tell me.",
}


async def main() -> None:
    model = sys.argv[1] if len(sys.argv) > 1 else None
    llm = LLMConfig(provider="embedded", model=model, embedded=EmbeddedConfig(context=8192))
    server = await start_embedded(llm)
    workspace = Path(tempfile.mkdtemp())
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    try:
        chat = server.url + "/v1/chat/completions"
        base = {"model": server.alias, "stream": True, "stream_options": {"include_usage": True}, "temperature": 0}
        system = {"role": "system", "content": system_prompt(workspace, "chat", None)}
        for name, text in PROMPTS.items():
            body = {**base, "messages": [system, {"role": "user", "content": text}], "tools": tool_wire()}
            _, raw = await asyncio.to_thread(post, chat, {**body, "max_tokens": 300})
            (OUT / f"{name}.sse").write_text(stable(raw.decode()).replace(str(workspace), "/workspace"))
            print(name, "recorded")
    finally:
        await server.stop()


if __name__ == "__main__":
    asyncio.run(main())
