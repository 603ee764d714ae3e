"""Record llama.cpp's prompt-processing progress stream (`return_progress: true`) from the prebuilt xllamacpp server
with Qwen2.5-Coder-0.5B, as tests/fakes/recorded/llamacpp_progress.sse (issue 27).

Run (under the heavy lock): python tests/fakes/record_progress.py

xllamacpp 2026.10.11549 sends, before the answer, one chunk per prompt batch whose `prompt_progress` is
{"total", "cache", "processed", "time_ms"} (`processed` counts the cached tokens too), with an empty assistant delta.
Volatile values (ids, timestamps, times) are fixed so re-recording only changes what the server changed.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent_server.config import Settings  # noqa: E402
from agent_server.llm.base import ChatRequest  # noqa: E402
from agent_server.llm.openai_compat import build_payload  # noqa: E402
from agent_server.messages import Message  # noqa: E402
from agent_server.tools.builtin import builtin_tools  # noqa: E402
from agent_server.tools.registry import ToolRegistry  # noqa: E402
from tests.real_llm import xllama  # noqa: E402

OUT = Path(__file__).parent / "recorded" / "llamacpp_progress.sse"


def main() -> None:
    model = xllama.qwen_model()
    if model is None:
        raise SystemExit("no Qwen2.5-Coder-0.5B GGUF (set AGENT_TEST_GGUF)")
    with tempfile.TemporaryDirectory() as tmp:
        server = xllama.start(model, Path(tmp) / "server.log")
        try:
            tools = ToolRegistry(builtin_tools(Settings())).specs()
            request = ChatRequest(
                model=server.model,
                messages=[
                    Message(role="system", content="You are a coding agent."),
                    Message(role="user", content="hi"),
                ],
                tools=tools,
            )
            body = {**build_payload(request), "return_progress": True, "max_tokens": 4, "temperature": 0}
            http = urllib.request.Request(
                server.url + "/v1/chat/completions",
                data=json.dumps(body).encode(),
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(http, timeout=600) as response:
                raw = response.read().decode()
        finally:
            server.stop()
    raw = re.sub(r'"created":\d+', '"created":1700000000', raw)
    raw = re.sub(r'"id":"chatcmpl-[^"]+"', '"id":"chatcmpl-recorded"', raw)
    raw = re.sub(r'"(time_ms|prompt_ms|predicted_ms)":[\d.]+', r'"\1":1000', raw)
    raw = re.sub(r'"(prompt_per_token_ms|prompt_per_second|predicted_per_token_ms|predicted_per_second)":[\d.]+',
                 r'"\1":1.0', raw)  # fmt: skip
    raw = "\n\n".join(block for block in raw.split("\n\n") if not block.startswith(":"))  # SSE pings
    OUT.write_text(raw)
    print(f"wrote {OUT} ({raw.count('prompt_progress')} progress chunks)")


if __name__ == "__main__":
    main()
